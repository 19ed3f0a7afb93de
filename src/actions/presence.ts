// Presence: clients report "active" or "idle" about once a minute; everyone may read it.
import { sql } from 'kysely';
import { apiEmail } from '../shapes/users.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { publishAfterCommit } from '../events/publish.js';

/** Zulip's server_presence_offline_threshold_seconds: older reports count as offline. */
export const OFFLINE_THRESHOLD_SECONDS = 140;

export interface PresenceRow {
  user_id: number;
  last_active_time: number | null;
  last_connected_time: number | null;
  last_update_id: number;
}

export async function presenceRows(db: Executor, realmId: number, afterUpdateId: number, sinceTime: number): Promise<PresenceRow[]> {
  const rows = await db
    .selectFrom('user_presence')
    .select(['user_id', 'last_active_time', 'last_connected_time', 'last_update_id'])
    .where('realm_id', '=', realmId)
    .where('last_update_id', '>', afterUpdateId)
    .where(sql<boolean>`coalesce(last_connected_time, 0) >= ${sinceTime}`)
    .execute();
  return rows.map((r) => ({
    user_id: r.user_id,
    last_active_time: r.last_active_time === null ? null : Number(r.last_active_time),
    last_connected_time: r.last_connected_time === null ? null : Number(r.last_connected_time),
    last_update_id: Number(r.last_update_id),
  }));
}

export async function lastPresenceUpdateId(db: Executor, realmId: number): Promise<number> {
  const r = await db.selectFrom('user_presence').select((eb) => eb.fn.max('last_update_id').as('m')).where('realm_id', '=', realmId).executeTakeFirst();
  return Number(r?.m ?? 0) || 0;
}

/** The modern format: {user_id: {active_timestamp, idle_timestamp}}. */
export function modernPresences(rows: PresenceRow[]): Record<string, { active_timestamp: number; idle_timestamp: number }> {
  const out: Record<string, { active_timestamp: number; idle_timestamp: number }> = {};
  for (const r of rows) out[String(r.user_id)] = { active_timestamp: r.last_active_time ?? 0, idle_timestamp: r.last_connected_time ?? 0 };
  return out;
}

/** The legacy format, keyed by email, with identical "website" and "aggregated" entries. */
export function legacyPresence(r: PresenceRow): Record<string, unknown> {
  const active = r.last_active_time !== null && r.last_active_time >= (r.last_connected_time ?? 0) - OFFLINE_THRESHOLD_SECONDS;
  const entry = { client: 'website', status: active ? 'active' : 'idle', timestamp: Math.max(r.last_active_time ?? 0, r.last_connected_time ?? 0), pushable: false };
  return { website: entry, aggregated: { client: entry.client, status: entry.status, timestamp: entry.timestamp } };
}

export function legacyPresences(rows: PresenceRow[], users: Map<number, User>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    const u = users.get(r.user_id);
    if (u) out[apiEmail(u)] = legacyPresence(r);
  }
  return out;
}

/** Records a report; announces it when the user becomes active, or is heard from after a silence. */
export async function updatePresence(services: Services, user: User, realm: Realm, status: 'active' | 'idle'): Promise<void> {
  const now = nowSeconds();
  const audience = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active && u.id !== user.id).map((u) => u.id);
  await services.database.transaction(async (tx, onCommit) => {
    const current = await tx.selectFrom('user_presence').selectAll().where('user_id', '=', user.id).executeTakeFirst();
    const nextId = (await lastPresenceUpdateId(tx, realm.id)) + 1;
    const lastActive = status === 'active' ? now : current?.last_active_time === undefined ? null : (current.last_active_time === null ? null : Number(current.last_active_time));
    const wasActiveRecently = current?.last_active_time != null && Number(current.last_active_time) >= now - OFFLINE_THRESHOLD_SECONDS;
    const heardRecently = current?.last_connected_time != null && Number(current.last_connected_time) >= now - OFFLINE_THRESHOLD_SECONDS;
    const row = { user_id: user.id, realm_id: realm.id, last_active_time: lastActive, last_connected_time: now, last_update_id: nextId };
    if (current) await tx.updateTable('user_presence').set(row).where('user_id', '=', user.id).execute();
    else await tx.insertInto('user_presence').values(row).execute();
    const changed = !heardRecently || (status === 'active' && !wasActiveRecently);
    if (changed) {
      const presence = legacyPresence({ user_id: user.id, last_active_time: lastActive, last_connected_time: now, last_update_id: nextId });
      publishAfterCommit(services, onCommit, {
        realmId: realm.id,
        userIds: audience,
        event: { type: 'presence', user_id: user.id, email: apiEmail(user), server_timestamp: Date.now() / 1000, presence: { website: (presence as { website: unknown }).website } },
      });
    }
  });
}
