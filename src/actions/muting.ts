// Muting users: the muter stops hearing from them; their messages count as read.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { User } from '../store/users.js';
import { deleteMute, insertMute, isMuted, mutedUsersOf } from '../store/muted_users.js';
import { setReadFlag } from '../store/messages.js';
import { unreadMessageIds } from '../store/unreads.js';
import { BadRequest, NoSuchUser } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { readFlagsEvent } from '../events/types.js';

async function target(services: Services, user: User, mutedId: number): Promise<User> {
  if (mutedId === user.id) throw new BadRequest('Cannot mute self');
  const other = await services.cache.user(user.realm_id, mutedId);
  if (!other) throw new NoSuchUser();
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
