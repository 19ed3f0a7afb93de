// Posting what an incoming webhook produced: to the channel named by `stream` (a name or an id)
// or, without one, as a direct message to the bot's owner, as Zulip's check_send_webhook_message
// does. A channel that does not exist is not an error for the service: the bot's owner is told.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { StreamDoesNotExist, StreamIdDoesNotExist } from '../errors.js';
import { sendMessage, type SendTarget } from './messages.js';
import { notificationBot } from './notification_bot.js';

export interface WebhookPost {
  topic: string;
  content: string;
}

export interface WebhookDestination {
  /** The `stream` parameter: a channel name, or an id when it is all digits. */
  stream?: string;
  /** The `topic` parameter, which replaces the integration's topic. */
  topic?: string;
  clientName: string;
}

export async function postWebhookMessages(services: Services, bot: User, realm: Realm, posts: WebhookPost[], dest: WebhookDestination): Promise<number[]> {
  const ids: number[] = [];
  for (const post of posts) {
    let target: SendTarget;
    if (dest.stream === undefined) {
      // Zulip writes to the bot's owner; an account without one (a person's own key) gets a note to self.
      target = { kind: 'direct', userIds: [bot.bot_owner_id ?? bot.id] };
    } else {
      const topic = dest.topic ?? post.topic;
      target = /^\d+$/.test(dest.stream) ? { kind: 'stream', streamId: Number(dest.stream), topic } : { kind: 'stream', streamName: dest.stream, topic };
    }
    try {
      const { id } = await sendMessage(services, bot, realm, { target, content: post.content, clientName: dest.clientName });
      ids.push(id);
    } catch (err) {
      if (!(err instanceof StreamDoesNotExist || err instanceof StreamIdDoesNotExist)) throw err;
      const identity = `@_**${bot.full_name}|${bot.id}**`;
      const stream = dest.stream!;
      await notifyBotOwner(
        services,
        bot,
        realm,
        /^\d+$/.test(stream)
          ? `Your bot ${identity} tried to send a message to channel ID ${stream}, but there is no channel with that ID.`
          : `Your bot ${identity} tried to send a message to channel #**${stream}**, but that channel does not exist. Click [here](#channels/new) to create it.`,
      );
      // One notice is enough however many messages the payload held.
      return ids;
    }
  }
  return ids;
}

const NOTICE_INTERVAL_MS = 60_000;

/**
 * A direct message from the Notification Bot to a bot's owner about its misconfigured integration,
 * at most one a minute per bot so a service retrying a broken request cannot flood the owner.
 */
export async function notifyBotOwner(services: Services, bot: User, realm: Realm, content: string): Promise<void> {
  if (!bot.is_bot || bot.bot_owner_id === null) return;
  // When each bot's owner was last told (per server, as a flood guard).
  const lastNotice = services.jobs.botOwnerNotices;
  const now = Date.now();
  if ((lastNotice.get(bot.id) ?? -Infinity) > now - NOTICE_INTERVAL_MS) return;
  lastNotice.set(bot.id, now);
  if (lastNotice.size > 10_000) lastNotice.clear();
  const owner = await services.cache.user(realm.id, bot.bot_owner_id);
  if (!owner?.is_active) return;
  const sender = await notificationBot(services, realm.id);
  await sendMessage(services, sender, realm, { target: { kind: 'direct', userIds: [owner.id] }, content, clientName: 'Internal' });
}
