// Push notification device tokens (the deprecated per-platform endpoints) and API key rotation.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { User } from '../store/users.js';
import { updateUser } from '../store/users.js';
import { BadRequest, InvalidPushDeviceToken, NoActivePushDevice, PushServiceNotConfigured } from '../errors.js';
import { generateApiKey } from '../lib/secrets.js';
import type { Executor } from '../store/db.js';
import { publishAfterCommit } from '../events/publish.js';
import { registerE2eeDevice, registerTokenWithBouncer, sendTestPush, unregisterTokenWithBouncer } from './push_notifications.js';
import type { Realm } from '../store/realms.js';
import { deletePushToken, hasPushRegisteredDevice, hasPushToken, insertClientDevice, isUsersClientDevice, listClientDevices, upsertPushToken } from '../store/devices.js';

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
  // With a push notification service, the token is registered there first (nothing is stored
  // here when it refuses).
  await registerTokenWithBouncer(services, user, kind, token, appid);
  await services.database.transaction(async (tx) => {
    await upsertPushToken(tx, user.id, kind, token, appid, nowSeconds());
  });
}

export async function removePushToken(services: Services, user: User, kind: number, token: string): Promise<void> {
  checkToken(kind, token);
  await services.database.transaction(async (tx) => {
    const deleted = await deletePushToken(tx, user.id, kind, token);
    // With a push notification service, the service is the judge of unknown tokens (as Zulip).
    if (!deleted && !services.config.pushBouncer) throw new BadRequest('Token does not exist');
  });
  await unregisterTokenWithBouncer(services, user, kind, token);
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

// Logged-in devices (POST /register_client_device) and end-to-end encrypted push notifications.
// Confab has no push notification service, so no device ever completes a push registration.

/** The `devices` of POST /register: each of the user's logged-in devices by id. */
export async function devicesState(db: Executor, userId: number): Promise<Record<string, Record<string, unknown>>> {
  const rows = await listClientDevices(db, userId);
  const out: Record<string, Record<string, unknown>> = {};
  for (const { id, ...fields } of rows) out[String(id)] = fields;
  return out;
}

export async function registerClientDevice(services: Services, user: User): Promise<number> {
  return services.database.transaction(async (tx, onCommit) => {
    const id = await insertClientDevice(tx, user.id, nowSeconds());
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'device', op: 'add', device_id: id } });
    return id;
  });
}

export interface PushRegistration {
  deviceId: number;
  pushKeyId?: number;
  pushKey?: string;
  tokenKind?: string;
  tokenId?: string;
  bouncerPublicKey?: string;
  encryptedPushRegistration?: string;
}

function isBase64(v: string): boolean {
  return v.length > 0 && v.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(v);
}

/** POST /mobile_push/register: the request is checked as Zulip checks it; without a push service it is refused. */
export async function registerPushDevice(services: Services, user: User, reg: PushRegistration): Promise<Record<string, never>> {
  if (reg.pushKeyId !== undefined && (reg.pushKeyId < 0 || reg.pushKeyId > 0xffffffff)) {
    throw new BadRequest('Invalid push_key_id: Value error, Not a valid unsigned 32-bit integer');
  }
  if (reg.pushKey !== undefined) {
    const bytes = isBase64(reg.pushKey) ? Buffer.from(reg.pushKey, 'base64') : null;
    // One byte naming the cryptosystem (0x31: libsodium secretbox), then its 32-byte key.
    if (!bytes || bytes.length !== 33 || bytes[0] !== 0x31) throw new BadRequest('Invalid `push_key`');
  }
  if (reg.tokenKind !== undefined && reg.tokenKind !== 'fcm' && reg.tokenKind !== 'apns') throw new BadRequest('Invalid token_kind');
  if (reg.tokenId !== undefined && !isBase64(reg.tokenId)) throw new BadRequest('`token_id` is not Base64 encoded');
  const keyFields = [reg.pushKey, reg.pushKeyId];
  const tokenFields = [reg.tokenKind, reg.tokenId, reg.bouncerPublicKey, reg.encryptedPushRegistration];
  const complete = (f: unknown[]) => f.every((v) => v !== undefined);
  const partial = (f: unknown[]) => f.some((v) => v !== undefined) && !complete(f);
  if (partial(keyFields) || partial(tokenFields) || (!complete(keyFields) && !complete(tokenFields))) {
    throw new BadRequest('Missing parameters: provide the push key fields, the token fields, or both');
  }
  if (!(await isUsersClientDevice(services.database.db, user.id, reg.deviceId))) throw new BadRequest('Invalid `device_id`');
  if (!services.config.pushBouncer) throw new PushServiceNotConfigured();
  await registerE2eeDevice(services, user, reg);
  return {};
}

/** The deprecated test notification (non-E2EE tokens): the token must be one of the user's. */
export async function testPushNotification(services: Services, user: User, realm: Realm, token: string | undefined): Promise<Record<string, never>> {
  if (token !== undefined) {
    if (!(await hasPushToken(services.database.db, user.id, token))) throw new InvalidPushDeviceToken();
  }
  if (!services.config.pushBouncer) throw new PushServiceNotConfigured();
  await sendTestPush(services, user, realm, { token, e2ee: false });
  return {};
}

/** The E2EE test notification to one registered device, or all of them. */
export async function testE2eePushNotification(services: Services, user: User, realm: Realm, deviceId: number | undefined): Promise<Record<string, never>> {
  if (!(await hasPushRegisteredDevice(services.database.db, user.id, deviceId))) throw new NoActivePushDevice();
  if (!services.config.pushBouncer) throw new PushServiceNotConfigured();
  await sendTestPush(services, user, realm, { deviceId, e2ee: true });
  return {};
}
