// What the Markdown renderer may look up for one sender in one organization: users and groups to
// mention, linkifiers, the organization's URL (for relative local links), the image proxy, and
// the sender's emoticon setting. One place, so that sending, editing, previews and scheduled
// delivery render alike.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { GroupGraph } from '../store/cache.js';
import { groupDisplayName } from '../store/groups.js';
import { renderMarkdown, type LinkableChannel, type MentionGroup, type RenderContext } from '../markdown/render.js';
import { parseChannelLink } from '../markdown/channel_links.js';
import { getStreamsByNames, subscriptionsOf, type Stream } from '../store/channels.js';
import { latestTopicMessageId } from '../store/messages.js';
import { channelAccess } from '../access/channel_access.js';
import { emojiSourceUrl } from './realm_emoji.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { realmUrl } from '../shapes/realm.js';

/**
 * Groups a message may name: every named group, as Zulip's MentionData finds them by name,
 * system groups included (@*role:administrators* shows "@Administrators"); a deactivated one's
 * mention renders silent.
 */
export function mentionableGroups(graph: GroupGraph): MentionGroup[] {
  return [...graph.groups.values()].filter((g) => g.named).map((g) => ({ id: g.id, name: g.name, display: groupDisplayName(g), deactivated: g.deactivated }));
}

/** A message links at most this many channels and topics; later ones stay as typed. */
const MAX_CHANNEL_LINKS = 20;

/** The #**…** links of a content, parsed (at most MAX_CHANNEL_LINKS). */
function channelLinks(content: string) {
  if (!content.includes('#**')) return [];
  return [...content.matchAll(/#\*\*([^*\n]{1,300})\*\*/g)].slice(0, MAX_CHANNEL_LINKS).map((m) => parseChannelLink(m[1]!));
}

/**
 * Whether a message's sender may link a channel: as its channel access lets it see the channel;
 * a system bot, from no organization, as Zulip's user_has_content_access answers for it (public
 * and web-public channels, never a private one it is not subscribed to).
 */
function mayLinkChannel(graph: GroupGraph, sender: User, stream: Stream, subscribed: boolean): boolean {
  if (sender.realm_id !== stream.realm_id) return sender.is_bot && (stream.is_web_public || !stream.invite_only);
  return channelAccess(graph, sender, stream, subscribed).metadata;
}

/**
 * Links the context's #**…** names to channels written since it was made (in the caller's
 * transaction, like a message about a channel just created that links the channel itself), when
 * the sender may link them; names already resolved keep their channel.
 */
export function linkChannelsMadeSince(ctx: RenderContext & { graph: GroupGraph }, sender: User, content: string, made: readonly Stream[]): RenderContext {
  const channels = new Map(ctx.channels ?? []);
  for (const link of channelLinks(content)) {
    if (channels.has(link.channel)) continue;
    const key = link.channel.toLowerCase();
    const stream = made.find((s) => s.name.toLowerCase() === key);
    if (stream && mayLinkChannel(ctx.graph, sender, stream, false)) channels.set(link.channel, { id: stream.id, name: stream.name });
  }
  return { ...ctx, channels };
}

/**
 * The channels (and topics' newest messages) that #**…** links in the content name, limited to
 * channels the sender can see: two queries for the channels, one per linked topic.
 */
async function resolveChannelLinks(services: Services, realm: Realm, sender: User, graph: GroupGraph, content: string) {
  const channels = new Map<string, LinkableChannel>();
  const topicLatest = new Map<string, number>();
  const links = channelLinks(content);
  if (links.length === 0) return { channels, topicLatest };
  const names = [...new Set(links.map((l) => l.channel))];
  const db = services.database.db;
  const { keys, byKey } = await getStreamsByNames(db, realm.id, names);
  const subs = await subscriptionsOf(db, sender.id, [...byKey.values()].map((s) => s.id));
  names.forEach((name, i) => {
    const stream = byKey.get(keys[i]!);
    if (stream && mayLinkChannel(graph, sender, stream, subs.get(stream.id)?.active ?? false)) channels.set(name, { id: stream.id, name: stream.name });
  });
  for (const link of links) {
    const channel = channels.get(link.channel);
    if (!channel || link.topic === undefined || link.messageId !== undefined) continue;
    const key = `${channel.id}\u0000${link.topic.toLowerCase()}`;
    if (topicLatest.has(key)) continue;
    const latest = await latestTopicMessageId(db, channel.id, link.topic);
    if (latest !== undefined) topicLatest.set(key, latest);
  }
  return { channels, topicLatest };
}

export async function messageRenderContext(
  services: Services,
  realm: Realm,
  sender: User,
  content: string,
): Promise<RenderContext & { graph: GroupGraph; usersById: Map<number, User> }> {
  const [users, graph, linkifiers] = await Promise.all([services.cache.users(realm.id), services.cache.groupGraph(realm.id), services.cache.linkifiers(realm.id)]);
  const { channels, topicLatest } = await resolveChannelLinks(services, realm, sender, graph, content);
  // Custom emoji are looked up only for content that can name one.
  const realmEmoji = /:[\w+-]+:/.test(content)
    ? (await services.cache.realmEmoji(realm.id)).filter((e) => !e.deactivated && e.file_name).map((e) => ({ name: e.name, source_url: emojiSourceUrl(realm.id, e.file_name!) }))
    : [];
  return {
    realmEmoji,
    channels,
    topicLatest,
    // Re-iterable: a context may serve more than one render.
    users: { [Symbol.iterator]: () => users.values() },
    usersById: users,
    graph,
    groups: mentionableGroups(graph),
    linkifiers,
    realmUrl: realmUrl(realm, services.config.externalUrl),
    camo: services.config.camo ?? undefined,
    translateEmoticons: userSettingsOf(sender.settings).translate_emoticons,
  };
}

/** A channel description as Zulip renders it: the sender's Markdown context, without previews. */
export async function renderChannelDescription(services: Services, realm: Realm, caller: User, description: string): Promise<string> {
  if (!description) return '';
  const ctx = await messageRenderContext(services, realm, caller, description);
  return renderMarkdown(description, { ...ctx, previews: false }).html;
}
