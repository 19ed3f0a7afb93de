// Channel and subscription endpoints Zulip clients still call: the legacy PATCH of one's
// subscriptions (add and delete in one transaction), legacy topic muting, subscription status,
// a user's channels, a channel's members, POST /channels/create and a channel's email address.
import { randomBytes } from 'node:crypto';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { activeUserSubscriberIds, allSubscriptionsOf, channelEmailToken, insertChannelEmailToken, getStream, getStreamByName, getStreamsByIds, isSubscribed, type Stream } from '../store/channels.js';
import { VISIBILITY } from '../store/user_topics.js';
import { isUserInGroup } from '../store/cache.js';
import { ApiError, BadRequest, InvalidStreamId, NoSuchUser, NotAllowed } from '../errors.js';
import { channelAccess, isRealmAdmin } from '../access/channel_access.js';
import { canSeeSubscribers } from '../shapes/channels.js';
import { isUniqueViolation, prepareSubscribe, type SubscribeRequest, type SubscribeResult } from './channels.js';
import { prepareUnsubscribe, type UnsubscribeResult } from './unsubscribe.js';
import { setUserTopic } from './alert_words.js';
import { usersVisibleTo } from './users.js';

/** Zulip's answer when POST /channels/create names a channel that exists (HTTP 409). */
export class ChannelAlreadyExists extends ApiError {
  constructor(name: string) {
    super(`Channel '${name}' already exists`, 'CHANNEL_ALREADY_EXISTS', 409);
  }
}

/**
 * PATCH /users/me/subscriptions: the caller joins `add` and leaves `delete`, every check made
 * before anything is written, both written in one transaction (Zulip rolls both back together).
 */
export async function updateOwnSubscriptions(
  services: Services,
  caller: User,
  realm: Realm,
  add: SubscribeRequest,
  del: string[],
): Promise<SubscribeResult & UnsubscribeResult> {
  const once = async () => {
    const subscribe = await prepareSubscribe(services, caller, realm, add);
    const unsubscribe = await prepareUnsubscribe(services, caller, realm, del, undefined);
    return services.database.transaction(async (tx, onCommit) => {
      const added = subscribe.respond(await subscribe.write(tx, onCommit));
      const removed = await unsubscribe(tx, onCommit);
      return { ...added, ...removed };
    });
  };
  try {
    return await once();
  } catch (e) {
    // A concurrent request created the same channel: run again and find it.
    if (!isUniqueViolation(e)) throw e;
    return once();
  }
}

/**
 * PATCH /users/me/subscriptions/muted_topics (legacy): `add` mutes the topic, `remove` resets it,
 * through the same action as POST /user_topics. Zulip answers a failed removal "Topic is not muted".
 */
export async function legacyMuteTopic(
  services: Services,
  user: User,
  realm: Realm,
  channel: { id: number } | { name: string },
  topic: string,
  op: 'add' | 'remove',
): Promise<void> {
  const db = services.database.db;
  let stream: Stream | undefined;
  if ('id' in channel) stream = await getStream(db, realm.id, channel.id);
  else stream = await getStreamByName(db, realm.id, channel.name.trim());
  const graph = await services.cache.groupGraph(realm.id);
  const readable = stream !== undefined && channelAccess(graph, user, stream, await isSubscribed(db, user.id, stream.id)).content;
  if (!readable || !stream) {
    if (op === 'remove') throw new BadRequest('Topic is not muted');
    throw 'id' in channel ? new InvalidStreamId() : new BadRequest(`Invalid channel name '${channel.name}'`);
  }
  await setUserTopic(services, user, realm, stream.id, topic, op === 'add' ? VISIBILITY.muted : VISIBILITY.inherit);
}

/**
 * The target of a lookup about another user, as Zulip's access_user_by_id(for_admin=False): a
 * missing user is 'No such user'; one the caller may not see is 'Insufficient permission'
 * (check_can_access_user), which reveals nothing since every id is in the caller's /register as an
 * "Unknown user", and is said before 'User is deactivated', which the placeholder would not tell.
 */
async function accessibleUser(services: Services, caller: User, realm: Realm, userId: number): Promise<User> {
  const target = await services.cache.user(realm.id, userId);
  if (!target) throw new NoSuchUser();
  // access_user_common: deactivation is checked before whether the caller may see the user.
  if (!target.is_active) throw new BadRequest('User is deactivated');
  const visible = await usersVisibleTo(services, caller, realm);
  if (visible !== null && !visible.has(target.id)) throw new NotAllowed('Insufficient permission');
  return target;
}

/** A channel whose subscribers the caller may see; anything else is "Invalid channel ID". */
async function channelWithVisibleSubscribers(services: Services, caller: User, realm: Realm, streamId: number): Promise<Stream> {
  const db = services.database.db;
  const stream = await getStream(db, realm.id, streamId);
  if (!stream) throw new InvalidStreamId();
  const graph = await services.cache.groupGraph(realm.id);
  const subscribed = await isSubscribed(db, caller.id, stream.id);
  if (!channelAccess(graph, caller, stream, subscribed).metadata || !canSeeSubscribers(graph, caller, stream, subscribed)) throw new InvalidStreamId();
  return stream;
}

/** GET /users/{user_id}/subscriptions/{stream_id}. */
export async function subscriptionStatus(services: Services, caller: User, realm: Realm, userId: number, streamId: number): Promise<boolean> {
  const target = await accessibleUser(services, caller, realm, userId);
  const stream = await channelWithVisibleSubscribers(services, caller, realm, streamId);
  return isSubscribed(services.database.db, target.id, stream.id);
}

/** GET /users/{user_id}/channels: the target's channels whose subscribers the caller may see. */
export async function subscribedChannelIds(services: Services, caller: User, realm: Realm, userId: number): Promise<number[]> {
  const target = await accessibleUser(services, caller, realm, userId);
  const db = services.database.db;
  const [theirs, mine] = await Promise.all([allSubscriptionsOf(db, target.id), allSubscriptionsOf(db, caller.id)]);
  const ids = theirs.filter((s) => s.active).map((s) => s.stream_id);
  const streams = await getStreamsByIds(db, realm.id, ids);
  const graph = await services.cache.groupGraph(realm.id);
  const callerIn = new Set(mine.filter((s) => s.active).map((s) => s.stream_id));
  return streams
    .filter((s) => channelAccess(graph, caller, s, callerIn.has(s.id)).metadata && canSeeSubscribers(graph, caller, s, callerIn.has(s.id)))
    .map((s) => s.id)
    .sort((a, b) => a - b);
}

/** GET /streams/{stream_id}/members: the channel's subscribers who are active users. */
export async function channelMembers(services: Services, caller: User, realm: Realm, streamId: number): Promise<number[]> {
  const stream = await channelWithVisibleSubscribers(services, caller, realm, streamId);
  return (await activeUserSubscriberIds(services.database.db, [stream.id])).get(stream.id) ?? [];
}

/**
 * POST /channels/create: a new channel with exactly the given subscribers (possibly none, and
 * not necessarily the creator). A name in use answers 409 CHANNEL_ALREADY_EXISTS.
 */
export async function createChannel(services: Services, caller: User, realm: Realm, req: SubscribeRequest): Promise<number> {
  const once = async () => {
    const name = req.channels[0]!.name.trim();
    const existing = await getStreamByName(services.database.db, realm.id, name);
    // Zulip reports the clash whether or not the caller may see the channel.
    if (existing) throw new ChannelAlreadyExists(existing.name);
    const plan = await prepareSubscribe(services, caller, realm, req);
    const outcome = await services.database.transaction(plan.write);
    return outcome.targets[0]!.id;
  };
  try {
    return await once();
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    return once();
  }
}

/**
 * The part of a channel's address Zulip derives from its name: runs of non-word characters become
 * one hyphen, then the name is lower-cased ASCII (Django's slugify); a name that loses letters
 * on the way is left out entirely.
 */
export function emailNamePart(name: string): string {
  const hyphenated = name.replace(/[^\p{L}\p{N}_]+/gu, '-');
  const slug = hyphenated
    .normalize('NFKD')
    .replace(/[^\x00-\x7f]/g, '')
    .replace(/[^\w\s-]/g, '')
    .toLowerCase()
    .trim()
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
  return slug.length === hyphenated.length ? slug : '';
}

/**
 * GET /streams/{stream_id}/email_address: the address Zulip's email gateway would use for the
 * channel and sender, with the host of the server's external URL. Only those who may post in the
 * channel get it. The token is made once per channel and sender and kept.
 */
export async function channelEmailAddress(services: Services, caller: User, realm: Realm, streamId: number, senderId: number | undefined): Promise<string> {
  const db = services.database.db;
  const stream = await getStream(db, realm.id, streamId);
  const graph = await services.cache.groupGraph(realm.id);
  if (!stream || !channelAccess(graph, caller, stream, await isSubscribed(db, caller.id, stream.id)).content) throw new InvalidStreamId();
  if (!isUserInGroup(graph, caller.id, stream.can_send_message_group)) throw new InvalidStreamId();
  // 0 stands for the email gateway, Zulip's default sender.
  let sender = 0;
  if (senderId !== undefined && senderId !== 0 && senderId !== caller.id) {
    const bot = await services.cache.user(realm.id, senderId);
    if (!bot || !bot.is_bot) throw new BadRequest('No such bot');
    if (!isRealmAdmin(caller) && bot.bot_owner_id !== caller.id) throw new NotAllowed('Insufficient permission');
    sender = bot.id;
  } else if (senderId === caller.id) {
    sender = caller.id;
  }
  const tokenOnce = () =>
    services.database.transaction(async (tx) => {
      const found = await channelEmailToken(tx, stream.id, sender);
      if (found) return found;
      const fresh = randomBytes(16).toString('hex');
      await insertChannelEmailToken(tx, { realm_id: realm.id, stream_id: stream.id, sender_id: sender, creator_id: caller.id, token: fresh });
      return fresh;
    });
  // Two first requests at once collide on the unique index; the second reads the first's token.
  const token = await tokenOnce().catch((e: unknown) => {
    if (isUniqueViolation(e)) return tokenOnce();
    throw e;
  });
  const host = new URL(services.config.externalUrl).hostname;
  const namePart = emailNamePart(stream.name);
  return `${namePart ? `${namePart}.` : ''}${token}.show-sender@${host}`;
}

/** GET /bots/{bot_id}/api_key: the bot's owner and organization administrators. */
export async function botApiKey(services: Services, caller: User, realm: Realm, botId: number): Promise<string> {
  const bot = await services.cache.user(realm.id, botId);
  if (!bot || !bot.is_bot) throw new BadRequest('No such bot');
  if (!isRealmAdmin(caller) && bot.bot_owner_id !== caller.id) throw new NotAllowed('Insufficient permission');
  return bot.api_key;
}
