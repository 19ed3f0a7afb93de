// Outgoing-webhook bots: their services (endpoint, format, token) and the persisted queue of
// deliveries. A delivery row is claimed with a conditional UPDATE (a lease), so among several
// processes polling the same table exactly one works on a row at a time.
import type { Executor } from './db.js';

/** Zulip's interface numbers: Service.GENERIC and Service.SLACK. */
export const INTERFACE = { zulip: 1, slack: 2 } as const;

export interface BotService {
  bot_id: number;
  name: string;
  base_url: string;
  interface: number;
  token: string;
}

export interface WebhookEvent {
  id: number;
  realm_id: number;
  bot_id: number;
  message_id: number;
  trigger: string;
  failures: number;
  next_attempt_ms: number;
  claimed_until_ms: number | null;
}

function serviceFromRow(r: Record<string, any>): BotService {
  return { bot_id: Number(r.bot_id), name: r.name, base_url: r.base_url, interface: Number(r.interface), token: r.token };
}

export async function insertService(db: Executor, s: BotService): Promise<void> {
  await db.insertInto('bot_services').values(s).execute();
}

export async function updateService(db: Executor, botId: number, change: { base_url: string; interface: number }): Promise<void> {
  await db.updateTable('bot_services').set(change).where('bot_id', '=', botId).execute();
}

/** The services of these bots, by bot id (one query). */
export async function servicesOf(db: Executor, botIds: readonly number[]): Promise<Map<number, BotService>> {
  const out = new Map<number, BotService>();
  if (botIds.length === 0) return out;
  const rows = await db.selectFrom('bot_services').selectAll().where('bot_id', 'in', [...botIds]).execute();
  for (const r of rows) out.set(Number(r.bot_id), serviceFromRow(r));
  return out;
}

/** Queues deliveries (inside the triggering message's transaction). */
export async function enqueueWebhookEvents(
  db: Executor,
  rows: Array<{ realm_id: number; bot_id: number; message_id: number; trigger: string }>,
  nowMs: number,
): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('outgoing_webhook_events')
    .values(rows.map((r) => ({ ...r, failures: 0, next_attempt_ms: nowMs, claimed_until_ms: null })))
    .execute();
}

function eventFromRow(r: Record<string, any>): WebhookEvent {
  return {
    id: Number(r.id),
    realm_id: Number(r.realm_id),
    bot_id: Number(r.bot_id),
    message_id: Number(r.message_id),
    trigger: r.trigger,
    failures: Number(r.failures),
    next_attempt_ms: Number(r.next_attempt_ms),
    claimed_until_ms: r.claimed_until_ms === null ? null : Number(r.claimed_until_ms),
  };
}

/** Rows whose time has come and which nobody holds, oldest first. */
export async function dueWebhookEvents(db: Executor, nowMs: number, limit: number): Promise<WebhookEvent[]> {
  const rows = await db
    .selectFrom('outgoing_webhook_events')
    .selectAll()
    .where('next_attempt_ms', '<=', nowMs)
    .where((eb) => eb.or([eb('claimed_until_ms', 'is', null), eb('claimed_until_ms', '<', nowMs)]))
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(eventFromRow);
}

/**
 * Takes the row for this process until `untilMs`, if it is still due and free. Returns whether
 * this caller got it: of several processes racing for one row, one UPDATE matches.
 */
export async function claimWebhookEvent(db: Executor, ev: WebhookEvent, nowMs: number, untilMs: number): Promise<boolean> {
  const res = await db
    .updateTable('outgoing_webhook_events')
    .set({ claimed_until_ms: untilMs })
    .where('id', '=', ev.id)
    .where('failures', '=', ev.failures)
    .where('next_attempt_ms', '<=', nowMs)
    .where((eb) => eb.or([eb('claimed_until_ms', 'is', null), eb('claimed_until_ms', '<', nowMs)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** A failed attempt to be tried again later: the lease is released. */
export async function retryWebhookEventLater(db: Executor, id: number, failures: number, nextAttemptMs: number): Promise<void> {
  await db.updateTable('outgoing_webhook_events').set({ failures, next_attempt_ms: nextAttemptMs, claimed_until_ms: null }).where('id', '=', id).execute();
}

/** Finishes a delivery; false when the row was already gone (another process finished it). */
export async function deleteWebhookEvent(db: Executor, id: number): Promise<boolean> {
  const res = await db.deleteFrom('outgoing_webhook_events').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) === 1;
}

export async function pendingWebhookEventCount(db: Executor): Promise<number> {
  const r = await db.selectFrom('outgoing_webhook_events').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}
