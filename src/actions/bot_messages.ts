// Messages that system bots (Notification Bot, Welcome Bot) write in Zulip markdown: rendered
// with the ordinary renderer before the transaction, then written inside the caller's one.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { OnCommit } from '../events/publish.js';
import { FLAG_BITS } from '../store/messages.js';
import { mentionFree, renderMarkdown, type Rendered } from '../markdown/render.js';
import { messageRenderContext } from './render_context.js';
import { writeAutomatedDirectMessages, writeMessage, type PreparedMessage } from './message_write.js';
import { normalizeContent } from '../lib/message_text.js';
import { systemBot, WELCOME_BOT_EMAIL } from './notification_bot.js';
import { alertedIn, alertedUserIds, recipientsAlertWords } from './message_mentions.js';
import { mutersInRealm } from '../store/muted_users.js';

export function welcomeBot(services: Services, _realmId?: number): Promise<User> {
  return systemBot(services, WELCOME_BOT_EMAIL);
}

export interface RenderedBody {
  content: string;
  html: string;
  rendered: Rendered;
}

/** Renders a bot's markdown (reads outside any transaction: call it before opening one). */
export async function renderBotMessage(services: Services, realm: Realm, bot: User, markdown: string): Promise<RenderedBody> {
  const { content, ctx } = await prepareBotMessage(services, realm, bot, markdown);
  const rendered = renderMarkdown(content, ctx);
  return { content, html: rendered.html, rendered };
}

/** A bot's message before it is rendered: its text and what rendering it needs. */
export interface PreparedBotMessage {
  content: string;
  ctx: Awaited<ReturnType<typeof messageRenderContext>>;
}

/** The reads a bot's message needs (before a transaction), for rendering it later, inside one. */
export async function prepareBotMessage(services: Services, realm: Realm, bot: User, markdown: string): Promise<PreparedBotMessage> {
  const content = normalizeContent(markdown);
  return { content, ctx: await messageRenderContext(services, realm, bot, content) };
}

/**
 * A direct message from a bot to one user, inside the caller's transaction; unread for the user
 * (read if they muted the bot), with has_alert_word when it contains one of their alert words (Zulip's internal sends render
 * with the organization's alert words, as every message does).
 */
export async function postDirectFromBot(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  o: { bot: User; realm: Realm; users: Map<number, User>; recipient: User; body: RenderedBody },
): Promise<number> {
  const alerted = await alertedUserIds(tx, o.body.content, [o.recipient.id], o.bot.id);
  const muters = await mutersInRealm(tx, o.bot.id, o.realm.id);
  const { id } = await writeMessage(services, tx, onCommit, botDirectMessage(o, alerted, muters), { automated: true });
  return id;
}

/**
 * Direct messages from a bot, one to each recipient, inside the caller's transaction, written
 * together (a fixed number of queries however many); the same messages and events, in the same
 * order, as postDirectFromBot one after the other.
 */
export async function postDirectsFromBot(
  services: Services,
  tx: Transaction<DB>,
  onCommit: OnCommit,
  o: { bot: User; realm: Realm; users: Map<number, User>; items: ReadonlyArray<{ recipient: User; body: RenderedBody }> },
): Promise<number[]> {
  const users = new Map(o.users);
  users.set(o.bot.id, o.bot);
  // Every recipient's alert words in one query, matched against their own message.
  const words = await recipientsAlertWords(tx, o.items.map((it) => it.recipient.id), o.bot.id);
  const muters = await mutersInRealm(tx, o.bot.id, o.realm.id);
  return writeAutomatedDirectMessages(services, tx, onCommit, o.items.map((it) =>
    botDirectMessage({ bot: o.bot, realm: o.realm, users, recipient: it.recipient, body: it.body }, alertedIn(words, it.body.content), muters),
  ));
}

/**
 * A bot's direct message to one user (a notice, or a reminder delivered), prepared for writing:
 * unread for the user unless they
 * muted the bot (`muters`: Zulip's do_send_messages marks messages read for get_muting_users of
 * the sender, internal sends included; being read, it notifies them of nothing).
 */
export function botDirectMessage(
  o: { bot: User; realm: Realm; users: Map<number, User>; recipient: User; body: { content: string; html: string }; clientName?: string },
  alerted: ReadonlySet<number>,
  muters: ReadonlySet<number>,
): PreparedMessage {
  let users = o.users;
  if (users.get(o.bot.id) !== o.bot || users.get(o.recipient.id) !== o.recipient) {
    users = new Map(o.users);
    users.set(o.bot.id, o.bot);
    users.set(o.recipient.id, o.recipient);
  }
  const participants = [...new Set([o.bot.id, o.recipient.id])].sort((a, b) => a - b);
  return {
    sender: o.bot,
    realm: o.realm,
    content: o.body.content,
    rendered: mentionFree(o.body.html),
    stream: undefined,
    topic: '',
    dmParticipants: participants,
    everyone: new Set(participants),
    flagsOf: (userId) => {
      if (userId === o.bot.id) return FLAG_BITS.read;
      return (alerted.has(userId) ? FLAG_BITS.has_alert_word : 0) | (muters.has(userId) ? FLAG_BITS.read : 0);
    },
    clientName: o.clientName ?? 'Internal',
    users,
    linkifiers: [],
  };
}
