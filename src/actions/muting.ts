// Muting users: the muter stops hearing from them; their messages count as read.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { User } from '../store/users.js';
import { deleteMute, insertMute, isMuted, mutedUsersOf } from '../store/muted_users.js';
import { setReadFlag } from '../store/messages.js';
import { unreadMessageIds } from '../store/unreads.js';
import { BadRequest, NoSuchUser, NotAllowed } from '../errors.js';
import { usersVisibleTo } from './users.js';
import { publishAfterCommit } from '../events/publish.js';
import { readFlagsEvent } from '../events/types.js';

/**
 * The user to mute or unmute, as Zulip's mute_user and unmute_user look them up
 * (access_user_by_id_including_cross_realm with bots and deactivated users allowed, not for an
 * administrator): the system bots count too; a user the caller may not see is 'Insufficient
 * permission' (check_can_access_user), which tells nothing, since every id is in the caller's
 * /register as an "Unknown user".
 */
async function target(services: Services, user: User, mutedId: number): Promise<User> {
  if (mutedId === user.id) throw new BadRequest('Cannot mute self');
  const other = (await services.cache.user(user.realm_id, mutedId)) ?? (await services.cache.systemBots()).get(mutedId);
  if (!other) throw new NoSuchUser();
  const realm = await services.cache.realm(user.realm_id);
  const visible = realm && other.realm_id === user.realm_id ? await usersVisibleTo(services, user, realm) : null;
  if (visible && !visible.has(other.id)) throw new NotAllowed('Insufficient permission');
  return other;
}

export async function muteUser(services: Services, user: User, mutedId: number): Promise<void> {
  await target(services, user, mutedId);
  const now = nowSeconds();
  await services.database.transaction(async (tx, onCommit) => {
    if (await isMuted(tx, user.id, mutedId)) throw new BadRequest('User already muted');
    await insertMute(tx, user.id, mutedId, now);
    // Everything the muted user sent this user so far becomes read.
    const ids = await unreadMessageIds(tx, services.database.dialect, user.id, { senderId: mutedId });
    await setReadFlag(tx, user.id, ids);
    const list = await mutedUsersOf(tx, user.id);
    // The muted user's messages now arrive read for this user: their cached muters change.
    onCommit(() => services.cache.invalidateMuters(user.realm_id, mutedId));
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'muted_users', muted_users: list } });
    if (ids.length) {
      publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: readFlagsEvent(ids) });
    }
  });
}

export async function unmuteUser(services: Services, user: User, mutedId: number): Promise<void> {
  await target(services, user, mutedId);
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await isMuted(tx, user.id, mutedId))) throw new BadRequest('User is not muted');
    await deleteMute(tx, user.id, mutedId);
    const list = await mutedUsersOf(tx, user.id);
    onCommit(() => services.cache.invalidateMuters(user.realm_id, mutedId));
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'muted_users', muted_users: list } });
  });
}
