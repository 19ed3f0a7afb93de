// An organization's defaults for new users' settings: one JSON row per organization holding the
// values that differ from Confab's own defaults (a missing row means no overrides).
import type { Executor } from './db.js';

/** The organization's stored overrides. */
export async function realmUserDefaultOverrides(db: Executor, realmId: number): Promise<Record<string, unknown>> {
  const row = await db.selectFrom('realm_user_defaults').select('settings').where('realm_id', '=', realmId).executeTakeFirst();
  return row ? (JSON.parse(row.settings) as Record<string, unknown>) : {};
}

/** Replaces the organization's overrides. */
export async function storeRealmUserDefaultOverrides(db: Executor, realmId: number, overrides: Record<string, unknown>): Promise<void> {
  const text = JSON.stringify(overrides);
  const res = await db.updateTable('realm_user_defaults').set({ settings: text }).where('realm_id', '=', realmId).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) await db.insertInto('realm_user_defaults').values({ realm_id: realmId, settings: text }).execute();
}
