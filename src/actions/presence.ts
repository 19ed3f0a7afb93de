// Presence: clients report "active" or "idle" about once a minute; everyone may read it.
import type { RealmEmailDomains } from '../lib/realm_email_domains.js';
import { apiEmail } from '../shapes/users.js';
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { PresenceRow } from '../store/presence.js';
import { getPresence, writePresence } from '../store/presence.js';

export { presenceRows } from '../store/presence.js';
import { publishAfterCommit } from '../events/publish.js';

/** Zulip's server_presence_offline_threshold_seconds: older reports count as offline. */
export const OFFLINE_THRESHOLD_SECONDS = 140;

/**
 * presence_last_update_id as Zulip computes it: the newest update among the rows returned, else
 * what the client said it had seen, else -1.
 */
export function newestPresenceUpdateId(rows: readonly PresenceRow[], otherwise = -1): number {
  return rows.length ? rows.reduce((m, r) => Math.max(m, r.last_update_id), -1) : otherwise;
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

export function legacyPresences(rows: PresenceRow[], users: Map<number, User>, domains: RealmEmailDomains): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    const u = users.get(r.user_id);
    if (u) out[apiEmail(u, domains)] = legacyPresence(r);
  }
  return out;
}

/** Records a report; announces it when the user becomes active, or is heard from after a silence. */
export async function updatePresence(services: Services, user: User, realm: Realm, status: 'active' | 'idle'): Promise<void> {
  const now = nowSeconds();
  const audience = [...(await services.cache.users(realm.id)).values()].filter((u) => u.is_active && u.id !== user.id).map((u) => u.id);
  await services.database.transaction(async (tx, onCommit) => {
    const current = await getPresence(tx, user.id);
    const lastActive = status === 'active' ? now : (current?.last_active_time ?? null);
    const wasActiveRecently = current?.last_active_time != null && current.last_active_time >= now - OFFLINE_THRESHOLD_SECONDS;
    const heardRecently = current?.last_connected_time != null && current.last_connected_time >= now - OFFLINE_THRESHOLD_SECONDS;
    const nextId = await writePresence(tx, realm.id, user.id, lastActive, now);
    const changed = !heardRecently || (status === 'active' && !wasActiveRecently);
    if (changed) {
      const presence = legacyPresence({ user_id: user.id, last_active_time: lastActive, last_connected_time: now, last_update_id: nextId });
      publishAfterCommit(services, onCommit, {
        realmId: realm.id,
        userIds: audience,
        event: { type: 'presence', user_id: user.id, email: apiEmail(user, services.emailDomains), server_timestamp: Date.now() / 1000, presence: { website: (presence as { website: unknown }).website } },
      });
    }
  });
}
