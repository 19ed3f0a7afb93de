// The email outbox (a persisted queue) and password reset links.
import type { Executor } from './db.js';

export interface OutboxMail {
  realmId: number | null;
  kind: string;
  to: string;
  subject: string;
  text: string;
  html: string | null;
  /** Not before this time (ms); now when absent. */
  sendAfterMs?: number;
}

export interface OutboxRow {
  id: number;
  kind: string;
  to_address: string;
  subject: string;
  text_body: string;
  html_body: string | null;
  attempts: number;
}

/** Inserts the rows; returns their ids. */
export async function insertOutboxMails(db: Executor, mails: OutboxMail[], nowMs: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < mails.length; i += 200) {
    const rows = await db
      .insertInto('email_outbox')
      .values(
        mails.slice(i, i + 200).map((m) => ({
          realm_id: m.realmId,
          kind: m.kind,
          to_address: m.to,
          subject: m.subject,
          text_body: m.text,
          html_body: m.html,
          created_ms: nowMs,
          send_after_ms: m.sendAfterMs ?? nowMs,
          failed: false,
          attempts: 0,
          claimed_until_ms: null,
          sent_ms: null,
          last_error: null,
        })),
      )
      .returning('id')
      .execute();
    for (const r of rows) ids.push(Number(r.id));
  }
  return ids;
}

export async function outboxMailsByIds(db: Executor, ids: number[]): Promise<OutboxRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('email_outbox')
    .select(['id', 'kind', 'to_address', 'subject', 'text_body', 'html_body', 'attempts'])
    .where('id', 'in', ids)
    .where('sent_ms', 'is', null)
    .where('failed', '=', false)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), attempts: Number(r.attempts) }));
}

/** Unsent rows that are due and not held by a live claim, oldest first. */
export async function dueOutboxMails(db: Executor, nowMs: number, limit: number): Promise<OutboxRow[]> {
  const rows = await db
    .selectFrom('email_outbox')
    .select(['id', 'kind', 'to_address', 'subject', 'text_body', 'html_body', 'attempts'])
    .where('sent_ms', 'is', null)
    .where('failed', '=', false)
    .where('send_after_ms', '<=', nowMs)
    .where((eb) => eb.or([eb('claimed_until_ms', 'is', null), eb('claimed_until_ms', '<', nowMs)]))
    .orderBy('send_after_ms')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), attempts: Number(r.attempts) }));
}

/**
 * Takes a row for sending until leaseUntilMs: one conditional UPDATE, so of several processes
 * only one sees it succeed. Returns whether this caller holds the row.
 */
export async function claimOutboxMail(db: Executor, id: number, attempts: number, nowMs: number, leaseUntilMs: number): Promise<boolean> {
  const res = await db
    .updateTable('email_outbox')
    .set({ claimed_until_ms: leaseUntilMs, attempts: attempts + 1 })
    .where('id', '=', id)
    .where('attempts', '=', attempts)
    .where('sent_ms', 'is', null)
    .where('failed', '=', false)
    .where((eb) => eb.or([eb('claimed_until_ms', 'is', null), eb('claimed_until_ms', '<', nowMs)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function markOutboxSent(db: Executor, id: number, nowMs: number): Promise<void> {
  await db.updateTable('email_outbox').set({ sent_ms: nowMs, claimed_until_ms: null, last_error: null }).where('id', '=', id).execute();
}

/** A failed attempt: retry after retryAtMs, or give up (failed) when retryAtMs is null. */
export async function markOutboxFailure(db: Executor, id: number, error: string, retryAtMs: number | null): Promise<void> {
  await db
    .updateTable('email_outbox')
    .set(retryAtMs === null ? { failed: true, claimed_until_ms: null, last_error: error } : { send_after_ms: retryAtMs, claimed_until_ms: null, last_error: error })
    .where('id', '=', id)
    .execute();
}

/** Sent rows older than the cutoff: the outbox is a queue, not an archive. */
export async function deleteSentOutboxMails(db: Executor, beforeMs: number): Promise<void> {
  await db.deleteFrom('email_outbox').where('sent_ms', '<', beforeMs).execute();
}

export interface PasswordReset {
  id: number;
  user_id: number;
  created_at: number;
  used: boolean;
}

export async function insertPasswordReset(db: Executor, userId: number, tokenHash: string, now: number): Promise<void> {
  await db.insertInto('password_resets').values({ user_id: userId, token_hash: tokenHash, created_at: now, used: false }).execute();
}

export async function passwordResetByHash(db: Executor, tokenHash: string): Promise<PasswordReset | undefined> {
  const row = await db.selectFrom('password_resets').select(['id', 'user_id', 'created_at', 'used']).where('token_hash', '=', tokenHash).executeTakeFirst();
  return row && { id: Number(row.id), user_id: Number(row.user_id), created_at: Number(row.created_at), used: !!row.used };
}

/** Uses up every outstanding link of the user (the one followed and any older ones). */
export async function usePasswordResets(db: Executor, userId: number): Promise<void> {
  await db.updateTable('password_resets').set({ used: true }).where('user_id', '=', userId).where('used', '=', false).execute();
}
