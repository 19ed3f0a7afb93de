// Which emoji a request names: the rules reactions and user statuses share (Zulip's get_emoji_data
// and check_emoji_request).
import type { Executor } from '../store/db.js';
import { activeRealmEmojiByName, realmEmojiById, type ReactionType } from '../store/emoji.js';
import { isKnownUnicodeCode, unicodeEmojiByName, ZULIP_EXTRA_EMOJI } from '../lib/emoji.js';
import { BadRequest } from '../errors.js';

export interface EmojiRef {
  emoji_name: string;
  emoji_code: string;
  reaction_type: ReactionType;
}

/** An emoji by name: the organization's active custom emoji first, then "zulip", then Unicode. */
export async function emojiByName(db: Executor, realmId: number, name: string): Promise<{ emoji_code: string; reaction_type: ReactionType }> {
  const custom = await activeRealmEmojiByName(db, realmId, name);
  if (custom) return { emoji_code: String(custom.id), reaction_type: 'realm_emoji' };
  if (name === ZULIP_EXTRA_EMOJI.name) return { emoji_code: ZULIP_EXTRA_EMOJI.code, reaction_type: 'zulip_extra_emoji' };
  const unicode = unicodeEmojiByName(name);
  if (unicode) return { emoji_code: unicode.code, reaction_type: 'unicode_emoji' };
  throw new BadRequest(`Emoji '${name}' does not exist`);
}

export function isReactionType(v: string): v is ReactionType {
  return v === 'unicode_emoji' || v === 'realm_emoji' || v === 'zulip_extra_emoji';
}

export function parseReactionType(v: string | undefined): ReactionType | undefined {
  if (v === undefined) return undefined;
  if (isReactionType(v)) return v;
  throw new BadRequest('Invalid emoji type.');
}

/** Checks that name, code and type name one emoji that may be used anew. */
export async function checkEmoji(db: Executor, realmId: number, e: EmojiRef): Promise<void> {
  if (e.reaction_type === 'realm_emoji') {
    const id = /^\d{1,15}$/.test(e.emoji_code) ? Number(e.emoji_code) : undefined;
    const custom = id === undefined ? undefined : await realmEmojiById(db, realmId, id);
    if (!custom) throw new BadRequest('Invalid custom emoji.');
    if (custom.name !== e.emoji_name) throw new BadRequest('Invalid custom emoji name.');
    if (custom.deactivated) throw new BadRequest('This custom emoji has been deactivated.');
  } else if (e.reaction_type === 'zulip_extra_emoji') {
    if (e.emoji_code !== ZULIP_EXTRA_EMOJI.code) throw new BadRequest('Invalid emoji code.');
    if (e.emoji_name !== e.emoji_code) throw new BadRequest('Invalid emoji name.');
  } else {
    if (!isKnownUnicodeCode(e.emoji_code)) throw new BadRequest('Invalid emoji code.');
    if (unicodeEmojiByName(e.emoji_name)?.code !== e.emoji_code) throw new BadRequest('Invalid emoji name.');
  }
}
