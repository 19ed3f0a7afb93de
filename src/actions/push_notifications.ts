// Mobile push through Zulip's push notification service (the "bouncer"), as a self-hosted Zulip
// server uses it. Device tokens that phones register here are registered there too; a message
// that should reach a phone (notify_triggers.ts: pushTrigger) is queued in its send transaction
// and sent by this process's runner (each row claimed by one process) with Zulip's APNs and FCM
// payloads; reading a message takes its push back (a "remove" push). End-to-end encrypted
// registrations (POST /mobile_push/register) are forwarded to the bouncer's e2ee endpoint, and
// such devices get their pushes encrypted with their own key (lib/push_crypto.ts).
// Without CONFAB_PUSH_BOUNCER_URL none of this runs and the endpoints answer as before.
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { User } from '../store/users.js';
import type { Realm } from '../store/realms.js';
import { ApiError, BadRequest, FailedToConnectBouncer, InternalBouncerServerError, PushAdminActionRequired } from '../errors.js';
import { BouncerError, bouncerRequest, stableUuid, type BouncerConfig } from '../lib/push_bouncer.js';
import { runPeriodically, type Periodic } from '../lib/periodic.js';
import { FLAG_BITS, dmGroupMembers, flagsFor, getMessages, type MessageRow } from '../store/messages.js';
import { getStreamsByIds } from '../store/channels.js';
import { finishPushRegistration, updateClientDevicePush } from '../store/devices.js';
import {
  claimPush,
  deleteLegacyTokens,
  deletePush,
  duePushes,
  e2eeDevicesOf,
  expireE2eeTokens,
  insertPushQueue,
  legacyTokensOf,
  markPushActive,
  retryPushAt,
  takeActivePushes,
  takeActivePushesOfMessages,
  type NewPush,
  type QueuedPush,
} from '../store/push.js';
import { encryptPushPayload } from '../lib/push_crypto.js';
import { realmUrl } from '../shapes/realm.js';
import { apiEmail, avatarUrl } from '../shapes/users.js';
import { publishAfterCommit } from '../events/publish.js';
import type { DeviceUpdateEvent } from '../events/types.js';

export const APNS = 1;
export const GCM = 2;
const MAX_ATTEMPTS = 5;
const CLAIM_MS = 60_000;
/** Zulip truncates push content to 200 characters. */
const MAX_CONTENT = 200;
/** Removal pushes name at most this many messages (APNs' 4 KB limit). */
const MAX_REMOVE_IDS = 200;

/** The client-facing error for a bouncer failure, as Zulip reports them. */
export function bouncerApiError(err: unknown): ApiError {
  if (!(err instanceof BouncerError)) throw err;
  if (err.status === 0) return new FailedToConnectBouncer();
  if (err.status >= 500) return new InternalBouncerServerError();
  if (err.code === 'INVALID_ZULIP_SERVER' || err.status === 401 || err.status === 403) return new PushAdminActionRequired();
  return new ApiError(err.message, err.code ?? 'BAD_REQUEST', 400);
}

const identity = (cfg: BouncerConfig, user: User) => ({
  server_uuid: cfg.serverId,
  realm_uuid: stableUuid(cfg, 'realm', user.realm_id),
  user_uuid: stableUuid(cfg, 'user', user.id),
  user_id: String(user.id),
});

/**
 * The error for the token endpoints, whose API description lists only 400: the same code and
 * message as bouncerApiError, with status 400.
 */
function tokenEndpointError(err: unknown): ApiError {
  const e = bouncerApiError(err);
  return e.status === 400 ? e : new ApiError(e.message, e.code, 400);
}

/** Registers a legacy (non-E2EE) token with the bouncer before it is stored here. */
export async function registerTokenWithBouncer(services: Services, user: User, kind: number, token: string, appid: string | null): Promise<void> {
  const cfg = services.config.pushBouncer;
  if (!cfg) return;
  try {
    await bouncerRequest(cfg, 'push/register', { ...identity(cfg, user), token, token_kind: String(kind), ...(kind === APNS ? { ios_app_id: appid } : {}) });
  } catch (err) {
    throw tokenEndpointError(err);
  }
}

export async function unregisterTokenWithBouncer(services: Services, user: User, kind: number, token: string): Promise<void> {
  const cfg = services.config.pushBouncer;
  if (!cfg) return;
  try {
    await bouncerRequest(cfg, 'push/unregister', { ...identity(cfg, user), token, token_kind: String(kind) });
  } catch (err) {
    throw tokenEndpointError(err);
  }
}

export interface E2eeRegistration {
  deviceId: number;
  pushKeyId?: number;
  pushKey?: string;
  tokenKind?: string;
  tokenId?: string;
  bouncerPublicKey?: string;
  encryptedPushRegistration?: string;
}

/**
 * POST /mobile_push/register with a bouncer: the push key is stored at once; a token is stored as
 * pending and registered with the bouncer after the commit, the outcome reaching the user's
 * clients as a `device` update event (push_token_id, or push_registration_error_code).
 */
export async function registerE2eeDevice(services: Services, user: User, reg: E2eeRegistration): Promise<void> {
  const cfg = services.config.pushBouncer!;
  const now = nowSeconds();
  await services.database.transaction(async (tx, onCommit) => {
    const fields: Parameters<typeof updateClientDevicePush>[3] = {};
    if (reg.pushKey !== undefined) Object.assign(fields, { push_key: reg.pushKey, push_key_id: reg.pushKeyId });
    if (reg.tokenId !== undefined) Object.assign(fields, { pending_push_token_id: reg.tokenId, push_token_kind: reg.tokenKind, push_token_last_updated_timestamp: now, push_registration_error_code: null });
    await updateClientDevicePush(tx, user.id, reg.deviceId, fields);
    const event: DeviceUpdateEvent = { type: 'device', op: 'update', device_id: reg.deviceId };
    if (reg.pushKey !== undefined) event.push_key_id = reg.pushKeyId;
    if (reg.tokenId !== undefined) Object.assign(event, { pending_push_token_id: reg.tokenId, push_token_last_updated_timestamp: now, push_registration_error_code: null });
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event });
    if (reg.tokenId === undefined) return;
    onCommit(() => {
      void completeE2eeRegistration(services, cfg, user, reg).catch((err) => console.error(`push registration of device ${reg.deviceId}:`, err));
    });
  });
}

async function completeE2eeRegistration(services: Services, cfg: BouncerConfig, user: User, reg: E2eeRegistration): Promise<void> {
  let error: string | null = null;
  try {
    await bouncerRequest(cfg, 'push/e2ee/register', {
      realm_uuid: stableUuid(cfg, 'realm', user.realm_id),
      token_id: reg.tokenId,
      encrypted_push_registration: reg.encryptedPushRegistration,
      bouncer_public_key: reg.bouncerPublicKey,
    });
  } catch (err) {
    if (!(err instanceof BouncerError)) throw err;
    error = err.retryable ? (err.status === 0 ? 'FAILED_TO_CONNECT_BOUNCER' : 'INTERNAL_SERVER_ERROR_ON_BOUNCER') : (err.code ?? 'BAD_REQUEST');
  }
  await services.database.transaction(async (tx, onCommit) => {
    // Only if the registration is still the one asked for (a later one replaces it).
    if (!(await finishPushRegistration(tx, reg.deviceId, reg.tokenId!, error))) return;
    const event: DeviceUpdateEvent = { type: 'device', op: 'update', device_id: reg.deviceId, pending_push_token_id: null };
    if (error === null) event.push_token_id = reg.tokenId;
    else event.push_registration_error_code = error;
    publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event });
  });
}

// ---- sending ----

/** Queues pushes in the send transaction; the runner is woken after the commit. */
export async function queuePushes(services: Services, tx: Transaction<DB>, onCommit: (hook: () => void) => void, rows: NewPush[]): Promise<void> {
  if (rows.length === 0) return;
  await insertPushQueue(tx, rows);
  onCommit(() => services.jobs.push?.runSoon());
}

/** Zulip's push content: the rendered message as plain text (emoji as characters, quotes with "> "). */
export function pushContent(html: string): string {
  const text = html
    .replace(/<span[^>]*class="emoji emoji-([0-9a-f-]+)"[^>]*>[^<]*<\/span>/g, (_m, code: string) => String.fromCodePoint(...code.split('-').map((h) => parseInt(h, 16))))
    .replace(/<img[^>]*alt="([^"]*)"[^>]*>/g, '$1')
    .replace(/<blockquote>([\s\S]*?)<\/blockquote>/g, (_m, inner: string) =>
      inner
        .replace(/<[^>]+>/g, '')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => `> ${l}\n`)
        .join(''),
    )
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
  return text.replace(/\n{3,}/g, '\n\n').trim();
}

function truncate(content: string): [string, boolean] {
  return content.length <= MAX_CONTENT ? [content, false] : [content.slice(0, MAX_CONTENT) + '…', true];
}

function basePayload(services: Services, realm: Realm, user: User): Record<string, unknown> {
  const url = realmUrl(realm, services.config.externalUrl);
  return { server: new URL(services.config.externalUrl).host, realm_id: realm.id, realm_name: realm.name, realm_uri: url, realm_url: url, user_id: user.id };
}

interface PushContext {
  realm: Realm;
  user: User;
  sender: User;
  message: MessageRow;
  streamName: string | undefined;
  dmMembers: number[];
  users: Map<number, User>;
  groupId: number | null;
  groupName: string | undefined;
  trigger: string;
}

/** Zulip's legacy APNs and FCM payloads for a message. */
export function messagePayloads(services: Services, c: PushContext): { apns: Record<string, unknown>; gcm: Record<string, unknown>; gcmOptions: Record<string, unknown> } {
  const { message: msg, sender } = c;
  const data: Record<string, unknown> = { ...basePayload(services, c.realm, c.user), sender_id: sender.id, sender_email: apiEmail(sender, services.emailDomains), time: msg.date_sent };
  if (c.groupId !== null && c.groupName !== undefined) Object.assign(data, { mentioned_user_group_id: c.groupId, mentioned_user_group_name: c.groupName });
  if (msg.stream_id !== null) Object.assign(data, { recipient_type: 'stream', stream: c.streamName, stream_id: msg.stream_id, topic: msg.topic });
  else if (c.dmMembers.length > 2) Object.assign(data, { recipient_type: 'private', pm_users: [...c.dmMembers].sort((a, b) => a - b).join(',') });
  else data.recipient_type = 'private';
  const [content, truncated] = truncate(pushContent(msg.rendered_content));
  const name = (id: number) => c.users.get(id)?.full_name ?? 'Unknown user';
  const title = msg.stream_id !== null ? `#${c.streamName} > ${msg.topic}` : c.dmMembers.length > 2 ? c.dmMembers.map(name).sort().join(', ') : sender.full_name;
  let subtitle: string;
  if (c.trigger === 'mentioned') subtitle = c.groupName ? `${sender.full_name} mentioned @${c.groupName}:` : `${sender.full_name} mentioned you:`;
  else if (c.trigger.includes('wildcard_mentioned')) subtitle = `${sender.full_name} mentioned everyone:`;
  else if (msg.stream_id === null && c.dmMembers.length <= 2) subtitle = '';
  else subtitle = `${sender.full_name}:`;
  return {
    apns: { alert: { title, subtitle, body: content }, sound: 'default', badge: 0, custom: { zulip: { ...data, message_ids: [msg.id] } } },
    gcm: {
      ...data,
      event: 'message',
      zulip_message_id: msg.id,
      content,
      content_truncated: truncated,
      sender_full_name: sender.full_name,
      sender_avatar_url: avatarUrl(sender, false),
    },
    gcmOptions: { priority: 'high' },
  };
}

/** Sends to the user's legacy devices through the bouncer; forgets tokens the bouncer says are gone. */
async function notifyLegacy(services: Services, cfg: BouncerConfig, user: User, apns: Record<string, unknown>, gcm: Record<string, unknown>, gcmOptions: Record<string, unknown>, onlyToken?: string): Promise<void> {
  const tokens = (await legacyTokensOf(services.database.db, user.id)).filter((t) => onlyToken === undefined || t.token === onlyToken);
  if (tokens.length === 0) return;
  const android = tokens.filter((t) => t.kind === GCM).map((t) => t.token);
  const apple = tokens.filter((t) => t.kind === APNS).map((t) => t.token);
  const res = await bouncerRequest(
    cfg,
    'push/notify',
    {
      user_uuid: stableUuid(cfg, 'user', user.id),
      user_id: user.id,
      realm_uuid: stableUuid(cfg, 'realm', user.realm_id),
      apns_payload: apns,
      gcm_payload: gcm,
      gcm_options: gcmOptions,
      android_devices: android,
      apple_devices: apple,
    },
    { json: true },
  );
  const deleted = (res.deleted_devices ?? {}) as { android_devices?: string[]; apple_devices?: string[] };
  if (deleted.android_devices?.length || deleted.apple_devices?.length) {
    await services.database.transaction(async (tx) => {
      await deleteLegacyTokens(tx, GCM, deleted.android_devices ?? []);
      await deleteLegacyTokens(tx, APNS, deleted.apple_devices ?? []);
    });
  }
}

/** The plaintext of an end-to-end encrypted message push (Zulip's api/mobile-notifications format). */
export function e2eeMessagePayload(services: Services, c: PushContext): Record<string, unknown> {
  const { message: msg, sender } = c;
  const url = realmUrl(c.realm, services.config.externalUrl);
  const out: Record<string, unknown> = {
    type: 'message',
    realm_name: c.realm.name,
    realm_url: url,
    user_id: c.user.id,
    message_id: msg.id,
    sender_id: sender.id,
    sender_full_name: sender.full_name,
    sender_avatar_url: avatarUrl(sender, false),
    time: msg.date_sent,
    content: truncate(pushContent(msg.rendered_content))[0],
  };
  if (msg.stream_id !== null) Object.assign(out, { recipient_type: 'channel', channel_id: msg.stream_id, channel_name: c.streamName, topic: msg.topic });
  else Object.assign(out, { recipient_type: 'direct', recipient_user_ids: [...new Set([...c.dmMembers, sender.id, c.user.id])].sort((a, b) => a - b) });
  if (c.groupId !== null && c.groupName !== undefined) Object.assign(out, { mentioned_user_group_id: c.groupId, mentioned_user_group_name: c.groupName });
  return out;
}

/**
 * Sends an encrypted payload to each of the user's E2EE devices through the bouncer
 * (remotes/push/e2ee/notify); tokens the bouncer reports gone are marked expired here.
 */
async function notifyE2ee(services: Services, cfg: BouncerConfig, user: User, plaintext: Record<string, unknown>, urgent: boolean, onlyDevice?: number): Promise<void> {
  const devices = (await e2eeDevicesOf(services.database.db, user.id)).filter((d) => onlyDevice === undefined || d.id === onlyDevice);
  if (devices.length === 0) return;
  const json = JSON.stringify(plaintext);
  const requests = devices.map((d) => {
    const payload: Record<string, unknown> = { push_key_id: d.push_key_id, encrypted_data: encryptPushPayload(d.push_key, json) };
    if (d.push_token_kind === 'apns') {
      payload.aps = urgent ? { 'mutable-content': 1, alert: { title: 'New notification' } } : { 'content-available': 1 };
      return { token_id: d.push_token_id, http_headers: { apns_priority: urgent ? 10 : 5, apns_push_type: urgent ? 'alert' : 'background' }, payload };
    }
    return { token_id: d.push_token_id, fcm_priority: urgent ? 'high' : 'normal', payload };
  });
  const res = await bouncerRequest(cfg, 'push/e2ee/notify', { realm_uuid: stableUuid(cfg, 'realm', user.realm_id), push_requests: requests }, { json: true });
  const gone = Array.isArray(res.delete_token_ids) ? (res.delete_token_ids as string[]) : [];
  if (gone.length) {
    const expired = await services.database.transaction(async (tx, onCommit) => {
      const ids = await expireE2eeTokens(tx, user.id, gone);
      for (const id of ids) publishAfterCommit(services, onCommit, { realmId: user.realm_id, userIds: [user.id], event: { type: 'device', op: 'update', device_id: id, push_token_id: null } });
      return ids;
    });
    if (expired.length) console.info(`push: ${expired.length} expired device token(s) of user ${user.id} forgotten`);
  }
}

async function sendOnePush(services: Services, cfg: BouncerConfig, row: QueuedPush): Promise<void> {
  const db = services.database.db;
  const realm = await services.cache.realm(row.realm_id);
  const users = await services.cache.users(row.realm_id);
  const user = users.get(row.user_id);
  const [message] = await getMessages(db, row.realm_id, [row.message_id]);
  const flags = (await flagsFor(db, row.user_id, [row.message_id])).get(row.message_id);
  // Read, deleted or no longer received by the time it goes out: nothing to show.
  if (!realm || !user || !user.is_active || !message || flags === undefined || flags & FLAG_BITS.read) return;
  // The Notification Bot (reminders, subscription notices) belongs to no organization of people.
  const sender = users.get(message.sender_id) ?? (await services.cache.systemBots()).get(message.sender_id);
  if (!sender) return;
  const streamName = message.stream_id !== null ? (await getStreamsByIds(db, realm.id, [message.stream_id]))[0]?.name : undefined;
  const dmMembers = message.dm_group_id !== null ? ((await dmGroupMembers(db, [message.dm_group_id])).get(message.dm_group_id) ?? []) : [];
  const groupName = row.mentioned_group_id !== null ? (await services.cache.groupGraph(realm.id)).groups.get(row.mentioned_group_id)?.name : undefined;
  const payloads = messagePayloads(services, { realm, user, sender, message, streamName, dmMembers, users, groupId: row.mentioned_group_id, groupName, trigger: row.trigger });
  const context = { realm, user, sender, message, streamName, dmMembers, users, groupId: row.mentioned_group_id, groupName, trigger: row.trigger };
  await notifyLegacy(services, cfg, user, payloads.apns, payloads.gcm, payloads.gcmOptions);
  await notifyE2ee(services, cfg, user, e2eeMessagePayload(services, context), true);
  await services.database.transaction((tx) => markPushActive(tx, user.id, message.id));
}

/** One pass over the push queue. */
export async function sendDuePushes(services: Services, self?: Periodic): Promise<void> {
  const cfg = services.config.pushBouncer;
  if (!cfg) return;
  const db = services.database.db;
  for (const row of await duePushes(db, Date.now(), 100)) {
    if (self?.stopped) return;
    // Writes go through transactions: on SQLite only the writer connection may write.
    if (!(await services.database.transaction((tx) => claimPush(tx, row.id, row.attempts, Date.now(), Date.now() + CLAIM_MS)))) continue;
    try {
      await sendOnePush(services, cfg, row);
      await services.database.transaction((tx) => deletePush(tx, row.id));
    } catch (err) {
      const retry = err instanceof BouncerError && err.retryable && row.attempts + 1 < MAX_ATTEMPTS;
      if (retry) await services.database.transaction((tx) => retryPushAt(tx, row.id, Date.now() + 2000 * 2 ** row.attempts));
      else {
        console.error(`push of message ${row.message_id} to user ${row.user_id}:`, (err as Error).message);
        await services.database.transaction((tx) => deletePush(tx, row.id));
      }
    }
  }
}

/** Takes back the pushes of messages a user has read (Zulip's "remove" event). */
export async function removePushes(services: Services, realmId: number, userId: number, messageIds: number[] | null): Promise<void> {
  if (!services.config.pushBouncer) return;
  const ids = await services.database.transaction((tx) => takeActivePushes(tx, userId, messageIds));
  await sendRemoval(services, realmId, userId, ids);
}

/** Deleted messages: every user whose phone shows one of them gets a removal. */
export async function removePushesOfDeleted(services: Services, realmId: number, messageIds: number[]): Promise<void> {
  if (!services.config.pushBouncer || messageIds.length === 0) return;
  const taken = await services.database.transaction((tx) => takeActivePushesOfMessages(tx, messageIds));
  for (const [userId, ids] of taken) await sendRemoval(services, realmId, userId, ids);
}

async function sendRemoval(services: Services, realmId: number, userId: number, ids: number[]): Promise<void> {
  const cfg = services.config.pushBouncer;
  if (!cfg || ids.length === 0) return;
  const realm = await services.cache.realm(realmId);
  const user = (await services.cache.users(realmId)).get(userId);
  if (!realm || !user) return;
  const kept = ids.slice(-MAX_REMOVE_IDS);
  const base = basePayload(services, realm, user);
  const gcm = { ...base, event: 'remove', zulip_message_ids: kept.join(','), zulip_message_id: kept[0] };
  const apns = { badge: 0, custom: { zulip: { ...base, event: 'remove', zulip_message_ids: kept.join(',') } } };
  await notifyLegacy(services, cfg, user, apns, gcm, { priority: 'normal' });
  await notifyE2ee(services, cfg, user, { type: 'remove', realm_name: realm.name, realm_url: base.realm_url, user_id: user.id, message_ids: kept }, false);
}

/**
 * A test notification to the user's devices (POST /mobile_push/test_notification with a legacy
 * token, or /mobile_push/e2ee/test_notification with a device): Zulip's "test" payloads.
 */
export async function sendTestPush(services: Services, user: User, realm: Realm, o: { token?: string; deviceId?: number; e2ee: boolean }): Promise<void> {
  const cfg = services.config.pushBouncer!;
  const base = basePayload(services, realm, user);
  const time = nowSeconds();
  try {
    if (o.e2ee) {
      await notifyE2ee(services, cfg, user, { type: 'test', realm_name: realm.name, realm_url: base.realm_url, user_id: user.id, time }, true, o.deviceId);
    } else {
      const body = `This is a test notification from ${realm.name} (${String(base.realm_url)}).`;
      const zulip = { ...base, event: 'test', time };
      await notifyLegacy(services, cfg, user, { alert: { title: 'Test notification', body }, sound: 'default', badge: 0, custom: { zulip } }, zulip, { priority: 'high' }, o.token);
    }
  } catch (err) {
    // The E2EE endpoint documents 403 and 502 for the service's failures; the legacy one only 400.
    throw o.e2ee ? bouncerApiError(err) : tokenEndpointError(err);
  }
}

/** Starts the push runner and the removal of pushes on read (only with a bouncer configured). */
export function startPushDelivery(services: Services, intervalMs = 1000): Periodic | null {
  if (!services.config.pushBouncer) return null;
  const runner = runPeriodically('mobile push', intervalMs, (self) => sendDuePushes(services, self));
  services.jobs.push = runner;
  // Every way of reading (flags, mark all/channel/topic read, muting) ends in this event; every
  // process sees it, and takeActivePushes lets exactly one of them send the removal.
  services.bus.subscribe((e) => {
    const ev = e.event as { type: string; op?: string; flag?: string; messages?: number[]; all?: boolean };
    if (ev.type !== 'update_message_flags' || ev.op !== 'add' || ev.flag !== 'read' || e.userIds.length !== 1) return;
    void removePushes(services, e.realmId, e.userIds[0]!, ev.all ? null : (ev.messages ?? [])).catch((err) => console.error('push removal:', (err as Error).message));
  });
  // Deleted messages leave the phones that show them (one process claims each, as above).
  services.bus.subscribe((e) => {
    const ev = e.event as { type: string; message_ids?: number[]; message_id?: number };
    if (ev.type !== 'delete_message') return;
    const ids = ev.message_ids ?? (ev.message_id !== undefined ? [ev.message_id] : []);
    void removePushesOfDeleted(services, e.realmId, ids).catch((err) => console.error('push removal:', (err as Error).message));
  });
  return runner;
}
