// The Notification Bot's messages about a subscription request, as Zulip's
// send_user_subscribed_and_new_channel_notifications writes them: a direct message to each person
// someone else subscribed to existing channels, with `announce` the new channels' announcement in
// the organization's new-channel announcements channel, and in each new channel the message saying
// who created it. Written in the subscription's own transaction, in that order, so their events
// follow its subscription events after the commit.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { getStream, type Stream } from '../store/channels.js';
import type { SubscriptionOutcome } from '../shapes/channels.js';
import type { OnCommit } from '../events/publish.js';
import type { GroupGraph } from '../store/cache.js';
import { channelNarrow } from '../lib/narrow_urls.js';
import { channelLinkHtml } from '../markdown/channel_links.js';
import { paragraph, postChannelNotification, silentMention, text, type Piece } from './notification_bot.js';
import { postDirectsFromBot, prepareBotMessage, type PreparedBotMessage, type RenderedBody } from './bot_messages.js';
import { linkChannelsMadeSince } from './render_context.js';
import { mentionFree, renderMarkdown } from '../markdown/render.js';

/**
 * Zulip's MAX_BULK_NEW_SUBSCRIPTION_MESSAGES (POST /register's max_bulk_new_subscription_messages):
 * a request newly subscribing more users than this sends none of the direct messages.
 */
export const MAX_BULK_NEW_SUBSCRIPTION_MESSAGES = 100;

/** Zulip's topic for new-channel announcements (English: Confab has no translations). */
export const NEW_CHANNELS_TOPIC = 'new channels';

/** Zulip's Realm.STREAM_EVENTS_NOTIFICATION_TOPIC_NAME: where a channel's own events are told. */
export const CHANNEL_EVENTS_TOPIC = 'channel events';

/** Zulip's channel_events_topic_name: a channel that allows only the empty topic gets them there. */
export function channelEventsTopic(stream: Pick<Stream, 'topics_policy'>): string {
  return stream.topics_policy === 'empty_topic_only' ? '' : CHANNEL_EVENTS_TOPIC;
}

type ChannelPolicy = Pick<Stream, 'invite_only' | 'is_web_public' | 'history_public_to_subscribers'>;

/** The policy names Zulip's channel-created message uses (a public channel always shares its history). */
export function channelPolicyName(c: ChannelPolicy): string {
  if (c.is_web_public) return 'Web-public';
  if (!c.invite_only) return 'Public';
  return c.history_public_to_subscribers ? 'Private, shared history' : 'Private, protected history';
}

/** "**Public** channel created by @_**Name|id**. **Description:**" and the description in a quote block. */
export function channelCreatedMarkdown(actor: User, channel: ChannelPolicy & { description: string }): string {
  const description = channel.description === '' ? '*No description.*' : channel.description;
  return `**${channelPolicyName(channel)}** channel created by ${silentMention(actor).md}. **Description:**\n\`\`\`\` quote\n${description}\n\`\`\`\``;
}

/**
 * The channel-created messages' texts and render contexts, keyed by channel name (reads: call it
 * before the transaction). They are rendered in the transaction once the channels exist
 * (`renderChannelCreated`), as Zulip renders them after creating them: a description may link
 * its own channel, or another one the request creates.
 */
export async function prepareChannelCreatedMessages(
  services: Services,
  realm: Realm,
  bot: User,
  actor: User,
  channels: ReadonlyArray<ChannelPolicy & { name: string; description: string }>,
): Promise<Map<string, PreparedBotMessage>> {
  const out = new Map<string, PreparedBotMessage>();
  for (const c of channels) out.set(c.name, await prepareBotMessage(services, realm, bot, channelCreatedMarkdown(actor, c)));
  return out;
}

/** Renders a prepared channel-created message once the request's channels exist. */
export function renderChannelCreated(bot: User, prepared: PreparedBotMessage, created: readonly Stream[]): RenderedBody {
  const rendered = renderMarkdown(prepared.content, linkChannelsMadeSince(prepared.ctx, bot, prepared.content, created));
  return { content: prepared.content, html: rendered.html, rendered };
}

/** How many users the request newly subscribed to at least one channel (the acting user and bots included, as Zulip counts). */
export function newSubscriberCount(outcome: SubscriptionOutcome): number {
  const users = new Set<number>();
  for (const ids of outcome.added.values()) for (const id of ids) users.add(id);
  return users.size;
}

/** Whether Zulip would send the direct messages: asked for, and few enough users newly subscribed. */
export function newSubscriptionMessagesSent(outcome: SubscriptionOutcome): boolean {
  return newSubscriberCount(outcome) <= MAX_BULK_NEW_SUBSCRIPTION_MESSAGES;
}

/** Names that would break #**…** fall back to a plain Markdown link (Zulip's get_stream_link_syntax). */
const BREAKS_LINK_SYNTAX = /[`>*&]|\$\$|\r|\n/;

/** A link to a channel as Zulip's notices write it: #**name**. */
export function channelLink(stream: { id: number; name: string }): Piece {
  const path = channelNarrow(stream.id, stream.name);
  const html = channelLinkHtml(stream);
  if (BREAKS_LINK_SYNTAX.test(stream.name)) return { md: `[#${stream.name.replace(/([\\[\]])/g, '\\$1')}](${path})`, html };
  return { md: `#**${stream.name}**`, html };
}

/** Python's sorted() on names: by code point, not by UTF-16 unit. */
function byCodePoint(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** "@_**Actor|id** subscribed you to #**one**." or the bulleted list Zulip writes for several channels. */
export function subscribedYouBody(actor: User, streams: readonly Stream[]): { content: string; html: string } {
  const sorted = [...streams].sort((a, b) => byCodePoint(a.name, b.name));
  const who = silentMention(actor);
  if (sorted.length === 1) return paragraph([who, text(' subscribed you to '), channelLink(sorted[0]!), text('.')]);
  const head = paragraph([who, text(' subscribed you to the following channels:')]);
  const links = sorted.map(channelLink);
  return {
    // Zulip writes a newline after each item; message content is stored right-trimmed.
    content: `${head.content}\n\n${links.map((l) => `* ${l.md}`).join('\n')}`,
    html: `${head.html}\n<ul>\n${links.map((l) => `<li>${l.html}</li>\n`).join('')}</ul>`,
  };
}

/** "@_**Actor|id** created a new channel #**x**." or "… created the following channels: #**x**, #**y**." */
export function newChannelsBody(actor: User, created: readonly Stream[]): { content: string; html: string } {
  const pieces: Piece[] = [silentMention(actor), text(created.length > 1 ? ' created the following channels: ' : ' created a new channel ')];
  created.forEach((s, i) => pieces.push(...(i ? [text(', ')] : []), channelLink(s)));
  pieces.push(text('.'));
  return paragraph(pieces);
}

export interface SubscriptionNotices {
  bot: User;
  actor: User;
  realm: Realm;
  users: Map<number, User>;
  outcome: SubscriptionOutcome;
  /** Channels this request created: nobody is told by direct message of those. */
  created: readonly Stream[];
  sendDirectMessages: boolean;
  announce: boolean;
  /** The channel-created message of each created channel, by name (none for a channel left out of the map). */
  createdMessages: ReadonlyMap<string, PreparedBotMessage>;
  /** The group graph the messages were rendered with: whom their group mentions reach. */
  graph: GroupGraph;
}

/** Writes the Notification Bot's messages about a subscription request inside its transaction. */
export async function postSubscriptionNotices(services: Services, tx: Transaction<DB>, onCommit: OnCommit, n: SubscriptionNotices): Promise<void> {
  if (n.sendDirectMessages) await postSubscribedYouMessages(services, tx, onCommit, n);
  if (n.announce && n.created.length) await postNewChannelsAnnouncement(services, tx, onCommit, n);
  for (const stream of n.created) {
    const prepared = n.createdMessages.get(stream.name);
    if (!prepared) continue;
    const body = renderChannelCreated(n.bot, prepared, n.created);
    await postChannelNotification(services, tx, onCommit, {
      bot: n.bot,
      realm: n.realm,
      users: n.users,
      stream,
      topic: channelEventsTopic(stream),
      body,
      // As with the announcement: read for the creator, unread for everyone else subscribed.
      readFor: (userId) => userId === n.actor.id,
      // The description is the creator's text: its mentions count, as in any message.
      mentions: { rendered: body.rendered, graph: n.graph },
    });
  }
}

async function postSubscribedYouMessages(services: Services, tx: Transaction<DB>, onCommit: OnCommit, n: SubscriptionNotices): Promise<void> {
  const createdIds = new Set(n.created.map((s) => s.id));
  const streamsByUser = new Map<number, Stream[]>();
  for (const stream of n.outcome.targets) {
    if (createdIds.has(stream.id)) continue;
    for (const userId of n.outcome.added.get(stream.id) ?? []) {
      const list = streamsByUser.get(userId);
      if (list) list.push(stream);
      else streamsByUser.set(userId, [stream]);
    }
  }
  const items: Array<{ recipient: User; body: RenderedBody }> = [];
  for (const [userId, streams] of [...streamsByUser].sort((a, b) => a[0] - b[0])) {
    const recipient = n.users.get(userId);
    // Nobody is told of subscribing themselves; bots are never told.
    if (!recipient || recipient.id === n.actor.id || recipient.is_bot) continue;
    const body = subscribedYouBody(n.actor, streams);
    items.push({ recipient, body: { ...body, rendered: mentionFree(body.html) } });
  }
  // Written together: up to 100 of them, in a few queries.
  await postDirectsFromBot(services, tx, onCommit, { bot: n.bot, realm: n.realm, users: n.users, items });
}

async function postNewChannelsAnnouncement(services: Services, tx: Transaction<DB>, onCommit: OnCommit, n: SubscriptionNotices): Promise<void> {
  const channelId = n.realm.settings.new_stream_announcements_stream_id;
  // Read in the transaction: the announcements channel may be one this request created.
  const channel = channelId > 0 ? await getStream(tx, n.realm.id, channelId) : undefined;
  if (!channel || channel.is_archived) return;
  // Zulip looks at the channel's own policy here, not the organization's default.
  const topic = channel.topics_policy === 'empty_topic_only' ? '' : NEW_CHANNELS_TOPIC;
  await postChannelNotification(services, tx, onCommit, {
    bot: n.bot,
    realm: n.realm,
    users: n.users,
    stream: channel,
    topic,
    body: newChannelsBody(n.actor, n.created),
    // Zulip marks every message of the request read for the one who made it.
    readFor: (userId) => userId === n.actor.id,
  });
}

