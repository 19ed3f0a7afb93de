// Emoji reactions: one per message, user and emoji (a unique index on message, user, type and
// code); reactions with the same emoji are votes for one reaction, named by its first.
import type { Executor } from './db.js';
import type { ReactionType } from './emoji.js';

export interface EmojiKey {
  emoji_code: string;
  reaction_type: ReactionType;
}

/** Who reacted to the message with this emoji, first reactor first, and the names they used. */
export async function reactionsWithEmoji(db: Executor, messageId: number, e: EmojiKey): Promise<Array<{ user_id: number; emoji_name: string }>> {
  return db
    .selectFrom('reactions')
    .select(['user_id', 'emoji_name'])
    .where('message_id', '=', messageId)
    .where('emoji_code', '=', e.emoji_code)
    .where('reaction_type', '=', e.reaction_type)
    .orderBy('id')
    .execute();
}

/** Stores the user's reaction; false when the user already reacted with this emoji. */
export async function insertReaction(db: Executor, messageId: number, userId: number, e: EmojiKey & { emoji_name: string }): Promise<boolean> {
  const inserted = await db
    .insertInto('reactions')
    .values({ message_id: messageId, user_id: userId, emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type })
    .onConflict((oc) => oc.columns(['message_id', 'user_id', 'reaction_type', 'emoji_code']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Deletes the user's reaction with this emoji and answers the name it had, or undefined when there was none. */
export async function deleteReaction(db: Executor, messageId: number, userId: number, e: EmojiKey): Promise<string | undefined> {
  const mine = await db
    .selectFrom('reactions')
    .select(['id', 'emoji_name'])
    .where('message_id', '=', messageId)
    .where('user_id', '=', userId)
    .where('emoji_code', '=', e.emoji_code)
    .where('reaction_type', '=', e.reaction_type)
    .executeTakeFirst();
  if (!mine) return undefined;
  await db.deleteFrom('reactions').where('id', '=', mine.id).execute();
  return mine.emoji_name;
}
