// Zulip's narrow URLs (#narrow/channel/…/topic/…), as its clients build and parse them: ids with
// names for readability, and a percent-encoding that writes "." instead of "%".

/** Zulip's encode_hash_component: percent-encoding of everything but [A-Za-z0-9_.~-], then % → "." and . → ".2E". */
export function encodeHashComponent(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/\./g, '%2E')
    .replace(/%/g, '.');
}

/** "#narrow/channel/12-general-chat": the id, then the name with spaces as dashes. */
export function channelNarrow(id: number, name: string): string {
  return `#narrow/channel/${id}-${encodeHashComponent(name.replace(/ /g, '-'))}`;
}

export function topicNarrow(id: number, name: string, topic: string): string {
  return `${channelNarrow(id, name)}/topic/${encodeHashComponent(topic)}`;
}
