// Push notification device tokens (the deprecated per-platform endpoints) and API key rotation.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { User } from '../store/users.js';
import { updateUser } from '../store/users.js';
import { BadRequest } from '../errors.js';
import { generateApiKey } from '../lib/secrets.js';

export const APNS = 1;
export const GCM = 2;
const MAX_TOKEN_LENGTH = 4096;

function checkToken(kind: number, token: string): void {
  if (token === '' || token.length > MAX_TOKEN_LENGTH) throw new BadRequest('Empty or invalid length token');
  if (kind === APNS && (!/^[0-9a-fA-F]+$/.test(token) || token.length % 2 !== 0)) throw new BadRequest('Invalid APNS token');
}

export async function addPushToken(services: Services, user: User, kind: number, token: string, appid: string | null): Promise<void> {
  checkToken(kind, token);
  if (kind === APNS) {
    if (appid === null) throw new BadRequest("Missing 'appid' argument");
    if (!/^[A-Za-z0-9.-]+$/.test(appid)) throw new BadRequest('Invalid app ID');
  }
  await services.database.transaction(async (tx) => {
    const existing = await tx.selectFrom('push_device_tokens').select('id').where('user_id', '=', user.id).where('kind', '=', kind).where('token', '=', token).executeTakeFirst();
    if (existing) await tx.updateTable('push_device_tokens').set({ appid, last_updated: nowSeconds() }).where('id', '=', existing.id).execute();
    else await tx.insertInto('push_device_tokens').values({ user_id: user.id, kind, token, appid, last_updated: nowSeconds() }).execute();
  });
}

export async function removePushToken(services: Services, user: User, kind: number, token: string): Promise<void> {
  checkToken(kind, token);
  await services.database.transaction(async (tx) => {
    const res = await tx.deleteFrom('push_device_tokens').where('user_id', '=', user.id).where('kind', '=', kind).where('token', '=', token).executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) throw new BadRequest('Token does not exist');
  });
}

/** A new API key; the old one stops working as soon as this commits. */
export async function regenerateApiKey(services: Services, user: User): Promise<string> {
  const key = generateApiKey();
  await services.database.transaction(async (tx, onCommit) => {
    await updateUser(tx, user.id, { api_key: key });
    onCommit(() => services.cache.invalidateUsers(user.realm_id));
  });
  return key;
}
