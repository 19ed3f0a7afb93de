// Message rendering: Zulip-flavored Markdown through markdown-it (see parser.ts for the syntax,
// inline.ts, fences.ts, links.ts and code.ts for Zulip's rules). Content is bounded by
// max_message_length and every rule runs in time linear in its input.
import { getParser } from './parser.js';
import type { MentionGroup, MentionUser, RenderContext, Rendered, RenderEnv } from './env.js';

export { mentionFree } from './env.js';
export type { LinkableChannel, LinkifierRule, MentionGroup, MentionUser, RenderContext, Rendered, WildcardKind } from './env.js';
export { topicLinks } from './topic_links.js';

export function renderMarkdown(content: string, ctx: RenderContext = {}): Rendered {
  const byName = new Map<string, MentionUser[]>();
  const byId = new Map<number, MentionUser>();
  const groupsByName = new Map<string, MentionGroup>();
  // Only build the lookups when the content can contain a mention.
  if (content.includes('@')) {
    for (const u of ctx.users ?? []) {
      if (!u.is_active) continue;
      byId.set(u.id, u);
      const key = u.full_name.toLowerCase();
      const list = byName.get(key);
      if (list) list.push(u);
      else byName.set(key, [u]);
    }
    for (const g of ctx.groups ?? []) {
      // A deactivated group may share its name with an active one: the active one is meant.
      const key = g.name.toLowerCase();
      if (g.deactivated && groupsByName.has(key)) continue;
      groupsByName.set(key, g);
    }
  }
  const env: RenderEnv = {
    linkifiers: ctx.linkifiers ?? [],
    byName,
    byId,
    groupsByName,
    mentioned: new Set(),
    mentionedGroups: new Set(),
    streamWildcard: false,
    topicWildcard: false,
    realmUrl: ctx.realmUrl?.replace(/\/+$/, ''),
    camo: ctx.camo,
    translateEmoticons: ctx.translateEmoticons ?? false,
    channels: ctx.channels ?? new Map(),
    topicLatest: ctx.topicLatest ?? new Map(),
    previews: ctx.previews ?? true,
    realmEmoji: new Map([...(ctx.realmEmoji ?? [])].map((e) => [e.name, e])),
  };
  const html = getParser().render(content, env as unknown as Record<string, unknown>).trim();
  return {
    html,
    mentionedUserIds: env.mentioned,
    mentionedGroupIds: env.mentionedGroups,
    wildcard: env.streamWildcard ? 'stream' : env.topicWildcard ? 'topic' : null,
    streamWildcard: env.streamWildcard,
    topicWildcard: env.topicWildcard,
  };
}

