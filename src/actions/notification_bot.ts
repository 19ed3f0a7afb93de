// Zulip's Notification Bot: the system bot that posts automated messages (message-move
// breadcrumbs, resolved-topic notices, reminders). Each organization gets its own bot account,
// made on first use; the messages it posts skip the checks a person's messages go through.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import { escapeHtml } from '../lib/html.js';
import { topicNarrow } from '../lib/narrow_urls.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import { BOT_TYPE, ROLE, userFromRow, type User } from '../store/users.js';
import { formatUser } from '../shapes/users.js';
import { publishAfterCommit } from '../events/publish.js';
import type { Stream } from '../store/channels.js';
import { subscriberIds } from '../store/channels.js';
import { FLAG_BITS, setFirstMessageIdIfUnset } from '../store/messages.js';
import type { OnCommit } from '../events/publish.js';
import { insertAccount } from './users.js';
import { writeMessage } from './messages.js';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../lib/message_text.js';
import { realmUrl } from '../shapes/realm.js';

export const NOTIFICATION_BOT_EMAIL = 'notification-bot@zulip.com';
export const NOTIFICATION_BOT_NAME = 'Notification Bot';

function findBot(users: Map<number, User>, email: string): User | undefined {
  for (const u of users.values()) if (u.is_bot && u.email === email) return u;
  return undefined;
}

/** The organization's Notification Bot, created on first use (two first uses racing both succeed). */
export async function notificationBot(services: Services, realmId: number): Promise<User> {
  return systemBot(services, realmId, NOTIFICATION_BOT_EMAIL, NOTIFICATION_BOT_NAME);
}

/** One of the organization's system bots (Notification Bot, Welcome Bot), created on first use. */
export async function systemBot(services: Services, realmId: number, email: string, name: string): Promise<User> {
  const current = await services.cache.users(realmId);
  const found = findBot(current, email);
  if (found) return found;
  const everyone = [...current.values()].filter((u) => u.is_active).map((u) => u.id);
  try {
    await services.database.transaction(async (tx, onCommit) => {
      const made = await insertAccount(tx, {
        realmId,
        email,
        fullName: name,
        role: ROLE.member,
        passwordHash: null,
        now: nowSeconds(),
        isBot: true,
        botType: BOT_TYPE.generic,
      });
      // Clients already running learn of the new sender, as of any new account.
      const row = await tx.selectFrom('users').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
      publishAfterCommit(services, onCommit, {
        realmId,
        userIds: everyone,
        event: { type: 'realm_user', op: 'add', person: formatUser(userFromRow(row), { includeCustomProfileFields: true, canSeeDeliveryEmail: true }) },
      });
    });
  } catch {
    // Another request made it first; it is read below.
  }
  services.cache.invalidateUsers(realmId);
  services.cache.invalidateGroups(realmId);
  const made = findBot(await services.cache.users(realmId), email);
  if (!made) throw new Error(`the ${name} account could not be made`);
  return made;
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
 * Posts a Notification Bot message to a channel topic inside the caller's transaction: every
 * active subscriber receives it; it arrives read for `readFor` (the acting user, typically).
 */
export async function postChannelNotification(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  o: { bot: User; realm: Realm; users: Map<number, User>; stream: Stream; topic: string; body: { content: string; html: string }; readFor: (userId: number) => boolean },
): Promise<number> {
  const subs = await subscriberIds(tx, o.stream.id);
  const everyone = new Set(subs.filter((id) => o.users.get(id)?.is_active));
  const users = o.users.has(o.bot.id) ? o.users : new Map([...o.users, [o.bot.id, o.bot]]);
  const { id } = await writeMessage(services, tx, onCommit, {
    sender: o.bot,
    realm: o.realm,
    content: o.body.content,
    rendered: { html: o.body.html, mentionedUserIds: new Set(), mentionedGroupIds: new Set(), wildcard: null, streamWildcard: false, topicWildcard: false },
    stream: o.stream,
    topic: o.topic,
    dmParticipants: [],
    everyone,
    flagsOf: (userId) => (o.readFor(userId) ? FLAG_BITS.read : 0),
    clientName: 'Internal',
    users,
    linkifiers: [],
  }, { automated: true });
  // The channel may have lost all its messages earlier in the caller's transaction.
  await setFirstMessageIdIfUnset(tx, o.stream.id, id);
  return id;
}
