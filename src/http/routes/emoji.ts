// Emoji reactions, custom emoji and user statuses.
import { decodedPathPart, pathInt, type AuthedContext, type Router } from '../router.js';
import type { User } from '../../store/users.js';
import { BadRequest, InvalidMessage, NoSuchUser, NotAllowed } from '../../errors.js';
import { uploadedFiles } from '../multipart.js';
import { addReaction, removeReaction } from '../../actions/reactions.js';
import { isReactionType, parseReactionType } from '../../actions/emoji.js';
import { addRealmEmoji, deactivateRealmEmoji, emojiTooLarge, MAX_EMOJI_FILE_SIZE_MIB, realmEmojiState } from '../../actions/realm_emoji.js';
import { statusOf, updateUserStatus, type StatusChange } from '../../actions/user_status.js';
import { usersVisibleTo } from '../../actions/users.js';
import { isRealmAdmin } from '../../access/channel_access.js';
import type { Params } from '../../lib/params.js';

function statusChange(params: Params, withAway: boolean): StatusChange {
  const emojiName = params.optStr('emoji_name');
  const rawType = params.optStr('reaction_type');
  return {
    away: withAway ? params.optBool('away') : undefined,
    statusText: params.optStr('status_text'),
    emojiName,
    emojiCode: params.optStr('emoji_code'),
    // An empty emoji_name clears the emoji whatever code and type come with it (the mobile app
    // sends all three empty); as in Zulip, the type is checked only for an emoji being set.
    reactionType: emojiName === '' ? (rawType === undefined ? undefined : 'unicode_emoji') : parseReactionType(rawType),
  };
}

/**
 * The user a /users/{user_id}/status path names, as Zulip's access_user_by_id(allow_bots=False):
 * a bot is 'No such user' and a deactivated user 'User is deactivated'; a user the caller may not
 * see is access_user_common's 'Insufficient permission' (check_can_access_user), which tells
 * nothing new: every id is in the caller's /register, as an "Unknown user". That placeholder
 * passes for active, so a hidden user is refused before being found deactivated (Zulip checks
 * deactivation first, which would tell).
 */
async function statusTarget(ctx: AuthedContext, id = pathInt(ctx, 'user_id', () => new NoSuchUser())): Promise<User> {
  const { services, user, realm } = ctx;
  const target = await services.cache.user(realm.id, id);
  if (!target || target.is_bot) throw new NoSuchUser();
  const visible = await usersVisibleTo(services, user, realm);
  if (visible && !visible.has(target.id)) throw new NotAllowed('Insufficient permission');
  if (!target.is_active) throw new BadRequest('User is deactivated');
  return target;
}

export function registerEmojiRoutes(r: Router): void {
  r.post('/messages/{message_id}/reactions', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const id = pathInt(ctx, 'message_id', () => new InvalidMessage());
    const emojiName = params.str('emoji_name');
    const emojiCode = params.optStr('emoji_code');
    const reactionType = parseReactionType(params.optStr('reaction_type'));
    await addReaction(services, user, realm, id, { emojiName, emojiCode, reactionType });
    return {};
  });

  r.delete('/messages/{message_id}/reactions', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const id = pathInt(ctx, 'message_id', () => new InvalidMessage());
    const emojiName = params.optStr('emoji_name');
    const emojiCode = params.optStr('emoji_code');
    // Zulip does not check the type when removing: an unknown one matches no reaction.
    const rawType = params.optStr('reaction_type');
    const reactionType = rawType === undefined || isReactionType(rawType) ? rawType : null;
    await removeReaction(services, user, realm, id, { emojiName, emojiCode, reactionType });
    return {};
  });

  r.get('/realm/emoji', async ({ services, realm }) => ({ emoji: await realmEmojiState(services.database.db, realm.id) }));

  r.upload('/realm/emoji/{emoji_name}', {
    maxBytes: () => MAX_EMOJI_FILE_SIZE_MIB * 1024 * 1024,
    tooLarge: emojiTooLarge,
    maxFiles: 1,
    tooMany: () => new BadRequest('You must upload exactly one file.'),
  }, async (ctx) => {
    const { services, user, realm, request, params } = ctx;
    // The image travels as the request's one file, whatever its form field is called.
    const files = uploadedFiles(request);
    for (const f of files) params.accept(f.field);
    await addRealmEmoji(services, user, realm, decodedPathPart(ctx, 'emoji_name'), files);
    return {};
  });

  r.delete('/realm/emoji/{emoji_name}', async (ctx) => {
    await deactivateRealmEmoji(ctx.services, ctx.user, ctx.realm, decodedPathPart(ctx, 'emoji_name'));
    return {};
  });

  r.post('/users/me/status', async ({ params, services, user, realm }) => {
    // Zulip's update_user_status_backend is @human_users_only.
    if (user.is_bot) throw new BadRequest('This endpoint does not accept bot requests.');
    await updateUserStatus(services, user, realm, statusChange(params, true));
    return {};
  });

  r.get('/users/{user_id}/status', async (ctx) => {
    const { services, user, realm } = ctx;
    const target = await statusTarget(ctx);
    return { status: await statusOf(services, target) };
  });

  r.post('/users/{user_id}/status', async (ctx) => {
    const { params, services, user, realm } = ctx;
    const targetId = pathInt(ctx, 'user_id', () => new NoSuchUser());
    const change = statusChange(params, false);
    const target = await statusTarget(ctx, targetId);
    if (!isRealmAdmin(user)) throw new NotAllowed('Insufficient permission');
    await updateUserStatus(services, target, realm, change);
    return {};
  });
}
