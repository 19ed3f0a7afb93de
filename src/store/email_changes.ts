// Pending email address changes, each waiting for its confirmation link to be followed.
import type { Executor } from './db.js';

export async function insertEmailChange(db: Executor, userId: number, newEmail: string, key: string, now: number): Promise<void> {
  await db.insertInto('email_changes').values({ user_id: userId, new_email: newEmail, confirmation_key: key, created_at: now, used: false }).execute();
}

export async function emailChangeByKey(db: Executor, key: string): Promise<{ id: number; user_id: number; new_email: string; created_at: number; used: boolean } | undefined> {
  const r = await db.selectFrom('email_changes').select(['id', 'user_id', 'new_email', 'created_at', 'used']).where('confirmation_key', '=', key).executeTakeFirst();
  return r ? { id: r.id, user_id: r.user_id, new_email: r.new_email, created_at: Number(r.created_at), used: !!r.used } : undefined;
}

export async function markEmailChangeUsed(db: Executor, id: number): Promise<void> {
  await db.updateTable('email_changes').set({ used: true }).where('id', '=', id).execute();
}
