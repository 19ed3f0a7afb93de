// Zulip's system bots: the Notification Bot posts automated messages (message-move breadcrumbs,
// resolved-topic notices, reminders, reports), the Welcome Bot greets; every organization shares
// them, as Zulip keeps them in its internal organization. The messages they post skip the checks
// a person's messages go through.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import { escapeHtml } from '../lib/html.js';
import { topicNarrow } from '../lib/narrow_urls.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import { BOT_TYPE, ROLE, type User } from '../store/users.js';
import { getRealmByStringId, SYSTEM_BOT_REALM } from '../store/realms.js';
import type { Stream } from '../store/channels.js';
import { subscriberIds } from '../store/channels.js';
import { FLAG_BITS, setFirstMessageIdIfUnset } from '../store/messages.js';
import { mutersInRealm } from '../store/muted_users.js';
import type { GroupGraph } from '../store/cache.js';
import { mentionFree, type Rendered } from '../markdown/render.js';
import { addMentionedGenericBots, alertedUserIds, mentionedUserIds } from './message_mentions.js';
import type { OnCommit } from '../events/publish.js';
import { insertAccount } from './users.js';
import { insertRealmWithGroups } from './realms.js';
import { WILDCARD_MENTION_THRESHOLD } from './messages.js';
import { writeMessage } from './message_write.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';
import { realmUrl } from '../shapes/realm.js';

export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
export const NOTIFICATION_BOT_NAME = 'Notification Bot';
export const WELCOME_BOT_EMAIL = 'welcome-bot@zulip.com';
export const WELCOME_BOT_NAME = 'Welcome Bot';
export const EMAIL_GATEWAY_BOT_EMAIL = 'emailgateway@zulip.com';

/** Zulip's cross-realm bots (settings.CROSS_REALM_BOT_EMAILS), with their names. */
export const SYSTEM_BOTS: ReadonlyArray<{ email: string; name: string }> = [
  { email: NOTIFICATION_BOT_EMAIL, name: NOTIFICATION_BOT_NAME },
  { email: WELCOME_BOT_EMAIL, name: WELCOME_BOT_NAME },
  { email: EMAIL_GATEWAY_BOT_EMAIL, name: 'Email Gateway' },
];

function findBot(users: Map<number, User>, email: string): User | undefined {
  for (const u of users.values()) if (u.is_bot && u.email === email) return u;
  return undefined;
}

/**
 * Makes Zulip's internal organization and its system bots if they are missing (at every start;
 * processes starting together may race, and the loser reads what the winner made). As in Zulip,
 * they belong to no organization of people: they are not in realm_users, and their arrival is
 * nobody's realm_user event; /register lists them in cross_realm_bots.
 */
export async function ensureSystemBots(services: Services): Promise<Map<number, User>> {
  const { database, cache } = services;
  let realm = await getRealmByStringId(database.db, SYSTEM_BOT_REALM);
  if (!realm) {
    try {
      await database.transaction((tx) => insertRealmWithGroups(tx, SYSTEM_BOT_REALM, 'System bots', nowSeconds()));
    } catch {
      // Another process made it first.
    }
    realm = await getRealmByStringId(database.db, SYSTEM_BOT_REALM);
    if (!realm) throw new Error('the system bots\' organization could not be made');
  }
  const realmId = realm.id;
  const current = await cache.users(realmId);
  const missing = SYSTEM_BOTS.filter((b) => !findBot(current, b.email));
  if (missing.length) {
    for (const b of missing) {
      try {
        await database.transaction((tx) =>
          insertAccount(tx, { realmId, email: b.email, fullName: b.name, role: ROLE.member, passwordHash: null, now: nowSeconds(), isBot: true, botType: BOT_TYPE.generic }),
        );
      } catch {
        // Made by another process meanwhile.
      }
    }
    cache.invalidateUsers(realmId);
    cache.invalidateGroups(realmId);
  }
  return cache.systemBots();
}

/** The Notification Bot. */
export async function notificationBot(services: Services, _realmId?: number): Promise<User> {
  return systemBot(services, NOTIFICATION_BOT_EMAIL);
}

/** One of the system bots every organization shares. */
export async function systemBot(services: Services, email: string): Promise<User> {
  const found = findBot(await services.cache.systemBots(), email) ?? findBot(await ensureSystemBots(services), email);
  if (!found) throw new Error(`the system bot ${email} is missing`);
  return found;
}

/** The users' map a message shaper needs when a system bot takes part: the organization's and the bots. */
export async function withSystemBots(services: Services, users: Map<number, User>): Promise<Map<number, User>> {
  return new Map([...users, ...(await services.cache.systemBots())]);
}

// ---- the markdown Zulip's notifications use, and its rendering ----



/** A piece of notification text: its markdown (stored as the content) and its HTML. */
export interface Piece {
  md: string;
  html: string;
}

export const text = (s: string): Piece => ({ md: s, html: escapeHtml(s) });

/** A silent mention of a user: @_**Name|id**. */
export function silentMention(u: User): Piece {
  return { md: `@_**${u.full_name}|${u.id}**`, html: `<span class="user-mention silent" data-user-id="${u.id}">${escapeHtml(u.full_name)}</span>` };
}

/** Zulip's get_stream_topic_link_syntax: #**channel>topic**, or a plain link when names would break that syntax. */
export function topicLink(stream: Stream, topic: string): Piece {
  const path = topicNarrow(stream.id, stream.name, topic);
  const shown = topic === '' ? `<em>${EMPTY_TOPIC_DISPLAY_NAME}</em>` : escapeHtml(topic);
  const html = `<a class="stream-topic" data-stream-id="${stream.id}" href="/${path}">#${escapeHtml(stream.name)} &gt; ${shown}</a>`;
  const special = /[`>*&]|\$\$|\r|\n/;
  if (special.test(stream.name) || special.test(topic)) {
    const label = `#${stream.name.replace(/([\\[\]])/g, '\\$1')} > ${topic.replace(/([\\[\]])/g, '\\$1')}`;
    return { md: `[${label}](${path})`, html };
  }
  return { md: `#**${stream.name}>${topic}**`, html };
}

/** A link to one message in its (new) place. */
export function messageLink(services: Services, realm: Realm, stream: Stream, topic: string, messageId: number, label: string): Piece {
  const url = `${realmUrl(realm, services.config.externalUrl)}/${topicNarrow(stream.id, stream.name, topic)}/near/${messageId}`;
  return { md: `[${label}](${url})`, html: `<a href="${escapeHtml(url)}">${escapeHtml(label)}</a>` };
}

export function paragraph(pieces: Piece[]): { content: string; html: string } {
  return { content: pieces.map((p) => p.md).join(''), html: `<p>${pieces.map((p) => p.html).join('')}</p>` };
}

/**
 * Who a system bot's rendered channel message mentions, as Zulip's check_message and
 * do_send_messages work it out for any sender: users by name, and the members of each group
 * mentioned. A system bot may mention only groups everyone may mention
 * (sender_can_mention_group), and never belongs to can_mention_many_users_group, so a channel
 * wildcard in a channel of more than 15 subscribers is refused too; Zulip's internal send then
 * logs the error and sends nothing (undefined here).
 */
export function botMessageMentions(graph: GroupGraph, rendered: Rendered, subscriberCount: number): Set<number> | undefined {
  for (const groupId of rendered.mentionedGroupIds) {
    const group = graph.groups.get(groupId);
    if (group && group.can_mention_group !== null && group.can_mention_group !== graph.systemIds['role:everyone']) return undefined;
  }
  if (rendered.streamWildcard && subscriberCount > WILDCARD_MENTION_THRESHOLD) return undefined;
  return mentionedUserIds(graph, rendered);
}

/**
 * Posts a Notification Bot message to a channel topic inside the caller's transaction: every
 * active subscriber receives it; it arrives read for `readFor` (the acting user, typically) and
 * for those who muted the bot.
 * Subscribers whose alert words it contains get has_alert_word, whatever its text.
 * With `mentions` (a message whose text others wrote, rendered with its mentions), the mentioned
 * get the flags any message gives them, and what follows from those (unread mentions, missed-message
 * notices, following the topic); a message Zulip would refuse to send is not written (undefined).
 */
export async function postChannelNotification(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  o: {
    bot: User;
    realm: Realm;
    users: Map<number, User>;
    stream: Stream;
    topic: string;
    body: { content: string; html: string };
    readFor: (userId: number) => boolean;
    mentions?: { rendered: Rendered; graph: GroupGraph };
  },
): Promise<number | undefined> {
  const subs = await subscriberIds(tx, o.stream.id);
  const everyone = new Set(subs.filter((id) => o.users.get(id)?.is_active));
  const users = o.users.has(o.bot.id) ? o.users : new Map([...o.users, [o.bot.id, o.bot]]);
  const rendered: Rendered = o.mentions?.rendered ?? mentionFree(o.body.html);
  let mentioned = new Set<number>();
  if (o.mentions) {
    const found = botMessageMentions(o.mentions.graph, rendered, everyone.size);
    if (!found) {
      console.warn(`the Notification Bot's message to channel ${o.stream.id} mentions what a system bot may not; not sent, as Zulip does`);
      return undefined;
    }
    mentioned = found;
    addMentionedGenericBots(everyone, mentioned, users);
  }
  // Zulip's internal sends render with the organization's alert words like any message
  // (render_incoming_message): a recipient whose word the notice contains is alerted.
  const alerted = await alertedUserIds(tx, o.body.content, everyone, o.bot.id);
  // Those who muted the bot get it already read, as any message from a muted sender (Zulip's
  // do_send_messages marks get_muting_users' read for internal sends too); their mention and
  // alert-word flags stay, and being read it notifies nobody (missed_messages.ts).
  const muters = await mutersInRealm(tx, o.bot.id, o.realm.id);
  // Only the bot takes part in a topic it has just started: a topic wildcard flags nobody.
  const flagsOf = (userId: number): number => {
    let flags = o.readFor(userId) || muters.has(userId) ? FLAG_BITS.read : 0;
    if (mentioned.has(userId)) flags |= FLAG_BITS.mentioned;
    if (rendered.streamWildcard) flags |= FLAG_BITS.stream_wildcard_mentioned;
    if (alerted.has(userId)) flags |= FLAG_BITS.has_alert_word;
    return flags;
  };
  const { id } = await writeMessage(services, tx, onCommit, {
    sender: o.bot,
    realm: o.realm,
    content: o.body.content,
    rendered: { ...rendered, html: o.body.html },
    stream: o.stream,
    topic: o.topic,
    dmParticipants: [],
    everyone,
    flagsOf,
    clientName: 'Internal',
    users,
    linkifiers: [],
  }, { automated: true });
  // The channel may have lost all its messages earlier in the caller's transaction.
  await setFirstMessageIdIfUnset(tx, o.stream.id, id);
  return id;
}
