// Emoji reactions: anyone who can read a message may react to it. The first reaction with an emoji
// is checked like a new use of that emoji; later ones are votes for it and take its name. Events go
// to everyone who has the message, and for channels with shared history to all subscribers.
import { apiEmail } from '../shapes/users.js';
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { FLAG_BITS, insertUserMessages, messageHolderIds, type MessageRow } from '../store/messages.js';
import { deleteReaction, insertReaction, reactionsWithEmoji } from '../store/reactions.js';
import { getStream, subscriberIds, subscriptionsOf } from '../store/channels.js';
import { setTopicPolicy, topicPolicies, VISIBILITY } from '../store/user_topics.js';
import { userSettingsOf } from '../lib/user_settings.js';
import { nowSeconds } from '../services.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import { BadRequest, ReactionAlreadyExists, ReactionDoesNotExist } from '../errors.js';
import { modifiableMessage } from '../queries/message_access.js';
import { messageActionAudience } from '../access/channel_access.js';
import { checkEmoji, emojiByName } from './emoji.js';
import type { ReactionType } from '../store/emoji.js';

export interface ReactionRequest {
  emojiName?: string;
  emojiCode?: string;
  reactionType?: ReactionType;
}

/** Who hears about a change to the message: Zulip's event_recipient_ids_for_action_on_messages (messageActionAudience). */
export async function audience(db: Executor, realmId: number, m: MessageRow, users: ReadonlyMap<number, User>): Promise<number[]> {
  const stream = m.stream_id === null ? undefined : await getStream(db, realmId, m.stream_id);
  const [holders, subscribers] = await Promise.all([messageHolderIds(db, m.id), stream ? subscriberIds(db, stream.id) : Promise.resolve([])]);
  return [...messageActionAudience(holders, stream, subscribers, users)];
}

/** Zulip's "on participation" value of the automatic follow/unmute settings: reacting counts. */
const ON_PARTICIPATION = 1;

/**
 * The topic visibility a reaction gives the reactor by their automatic settings: subscribers whose
 * policy is "on participation" follow the topic, or unmute it in a muted channel.
 */
async function participationPolicy(tx: Executor, user: User, m: MessageRow): Promise<number | undefined> {
  if (m.stream_id === null) return undefined;
  const settings = userSettingsOf(user.settings);
  const follow = settings.automatically_follow_topics_policy === ON_PARTICIPATION;
  const unmute = settings.automatically_unmute_topics_in_muted_streams_policy === ON_PARTICIPATION;
  if (!follow && !unmute) return undefined;
  const sub = (await subscriptionsOf(tx, user.id, [m.stream_id])).get(m.stream_id);
  if (!sub?.active) return undefined;
  const current = (await topicPolicies(tx, [user.id], m.stream_id, m.topic)).get(user.id) ?? VISIBILITY.inherit;
  if (follow) return current === VISIBILITY.followed ? undefined : VISIBILITY.followed;
  return sub.is_muted && current === VISIBILITY.inherit ? VISIBILITY.unmuted : undefined;
}

/**
 * What taking part in a message (a reaction, a widget vote) does besides itself: a message read
 * through channel history becomes the user's own row (historical), so later changes to it reach
 * them, and the topic is followed or unmuted as the user's "on participation" settings say.
 */
export async function takePart(services: Services, tx: Executor, onCommit: OnCommit, realm: Realm, user: User, message: MessageRow): Promise<void> {
  await insertUserMessages(tx, [{ user_id: user.id, message_id: message.id, flags: FLAG_BITS.read | FLAG_BITS.historical }], true);
  const policy = await participationPolicy(tx, user, message);
  if (policy === undefined) return;
  const now = nowSeconds();
  await setTopicPolicy(tx, user.id, message.stream_id!, message.topic, policy, now);
  publishAfterCommit(services, onCommit, {
    realmId: realm.id,
    userIds: [user.id],
    event: { type: 'user_topic', stream_id: message.stream_id!, topic_name: message.topic, last_updated: now, visibility_policy: policy },
  });
}


function publishReaction(
  services: Services,
  onCommit: OnCommit,
  realm: Realm,
  user: User,
  userIds: number[],
  op: 'add' | 'remove',
  messageId: number,
  e: { emoji_name: string; emoji_code: string; reaction_type: string },
): void {
  publishAfterCommit(services, onCommit, {
    realmId: realm.id,
    userIds,
    event: {
      type: 'reaction',
      op,
      user_id: user.id,
      user: { user_id: user.id, email: apiEmail(user, services.emailDomains), full_name: user.full_name },
      message_id: messageId,
      emoji_name: e.emoji_name,
      emoji_code: e.emoji_code,
      reaction_type: e.reaction_type,
    },
  });
}

export async function addReaction(services: Services, user: User, realm: Realm, messageId: number, req: ReactionRequest & { emojiName: string }): Promise<void> {
  const message = await modifiableMessage(services, user, messageId);
  let code = req.emojiCode;
  let type = req.reactionType;
  if (code === undefined || type === undefined) {
    const found = await emojiByName(services.database.db, realm.id, req.emojiName);
    code ??= found.emoji_code;
    type ??= found.reaction_type;
  }
  const emojiCode = code;
  const reactionType = type;
  const users = await services.cache.users(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    const same = await reactionsWithEmoji(tx, message.id, { emoji_code: emojiCode, reaction_type: reactionType });
    if (same.some((r) => r.user_id === user.id)) throw new ReactionAlreadyExists();
    let emojiName = req.emojiName;
    // A vote for an existing reaction keeps that reaction's name; a new one must name a usable emoji.
    if (same[0]) emojiName = same[0].emoji_name;
    else await checkEmoji(tx, realm.id, { emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType });
    if (!(await insertReaction(tx, message.id, user.id, { emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType }))) throw new ReactionAlreadyExists();
    await takePart(services, tx, onCommit, realm, user, message);
    const userIds = await audience(tx, realm.id, message, users);
    publishReaction(services, onCommit, realm, user, userIds, 'add', message.id, { emoji_name: emojiName, emoji_code: emojiCode, reaction_type: reactionType });
  });
}

/**
 * Removes the user's reaction. A reaction_type no emoji has (null) matches nothing, as in Zulip,
 * which does not check the type here; without a code, the name's emoji gives the code only: the
 * type stays what was given, else unicode_emoji (remove_reaction's default), so a custom emoji's
 * reaction named without its type is not found, as in Zulip.
 */
export async function removeReaction(services: Services, user: User, realm: Realm, messageId: number, req: Omit<ReactionRequest, 'reactionType'> & { reactionType?: ReactionType | null }): Promise<void> {
  const message = await modifiableMessage(services, user, messageId);
  let code = req.emojiCode;
  let type = req.reactionType;
  if (code === undefined) {
    if (req.emojiName === undefined) throw new BadRequest('At least one of the following arguments must be present: emoji_name, emoji_code');
    const found = await emojiByName(services.database.db, realm.id, req.emojiName);
    code = found.emoji_code;
  }
  if (type === null) throw new ReactionDoesNotExist();
  const emojiCode = code;
  const reactionType: ReactionType = type ?? 'unicode_emoji';
  const users = await services.cache.users(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    const removedName = await deleteReaction(tx, message.id, user.id, { emoji_code: emojiCode, reaction_type: reactionType });
    if (removedName === undefined) throw new ReactionDoesNotExist();
    const userIds = await audience(tx, realm.id, message, users);
    publishReaction(services, onCommit, realm, user, userIds, 'remove', message.id, { emoji_name: removedName, emoji_code: emojiCode, reaction_type: reactionType });
  });
}
