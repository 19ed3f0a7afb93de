// Links to channels, topics and messages: #**channel**, #**channel>topic** and
// #**channel>topic@message_id**, for channels the sender can see (the caller resolves them into
// RenderEnv.channels before rendering, see actions/render_context.ts).
import type { StateInline } from 'markdown-it';
import { channelNarrow, topicNarrow } from '../lib/narrow_urls.js';
import { envOf, escapeHtml } from './env.js';

/** Longer than any channel name plus topic Zulip allows: the scan for the closing ** stops here. */
const MAX_LINK_TEXT = 300;

/** The parts of what is between #** and **: channel, topic (after the last >), message id (after @). */
export function parseChannelLink(inner: string): { channel: string; topic?: string; messageId?: number } {
  const gt = inner.lastIndexOf('>');
  if (gt < 0) return { channel: inner };
  const channel = inner.slice(0, gt);
  let topic = inner.slice(gt + 1);
  const at = /@(\d+)$/.exec(topic);
  if (!at) return { channel, topic };
  topic = topic.slice(0, at.index);
  return { channel, topic, messageId: Number(at[1]) };
}

/** Inline rule for #**…**: a link when the channel resolves, otherwise the text as typed. */
/** What #**name** renders to: the link to the channel's narrow (also written by Notification Bot notices). */
export function channelLinkHtml(channel: { id: number; name: string }): string {
  return `<a class="stream" data-stream-id="${channel.id}" href="/${escapeHtml(channelNarrow(channel.id, channel.name))}">#${escapeHtml(channel.name)}</a>`;
}

export function channelLinkRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x23 || !src.startsWith('**', start + 1)) return false;
  const limit = Math.min(state.posMax, start + 3 + MAX_LINK_TEXT);
  let end = start + 3;
  while (end < limit && src.charCodeAt(end) !== 0x2a && src.charCodeAt(end) !== 0x0a) end++;
  if (end === start + 3 || !src.startsWith('**', end)) return false;
  const env = envOf(state);
  const link = parseChannelLink(src.slice(start + 3, end));
  const channel = env.channels.get(link.channel);
  if (!channel) return false;
  let html: string;
  if (link.topic === undefined) {
    html = channelLinkHtml(channel);
  } else if (link.messageId !== undefined) {
    const href = `/${topicNarrow(channel.id, channel.name, link.topic)}/near/${link.messageId}`;
    html = `<a class="message-link" href="${escapeHtml(href)}">#${escapeHtml(channel.name)} &gt; ${escapeHtml(link.topic)} @ 💬</a>`;
  } else {
    const latest = env.topicLatest.get(`${channel.id}\u0000${link.topic.toLowerCase()}`);
    const href = `/${topicNarrow(channel.id, channel.name, link.topic)}${latest ? `/with/${latest}` : ''}`;
    html = `<a class="stream-topic" data-stream-id="${channel.id}" href="${escapeHtml(href)}">#${escapeHtml(channel.name)} &gt; ${escapeHtml(link.topic)}</a>`;
  }
  if (!silent) {
    const token = state.push('html_inline', '', 0);
    token.content = html;
  }
  state.pos = end + 2;
  return true;
}
