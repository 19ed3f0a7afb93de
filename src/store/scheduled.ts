// Scheduled messages.
import type { Executor } from './db.js';
import type { Row, ScheduledMessageTable } from './schema.js';

export type ScheduledMessage = Omit<Row<ScheduledMessageTable>, 'to_user_ids'> & { to_user_ids: number[] };

function fromRow(r: Record<string, any>): ScheduledMessage {
  return {
    ...(r as ScheduledMessage),
    to_user_ids: JSON.parse(r.to_user_ids) as number[],
    scheduled_timestamp: Number(r.scheduled_timestamp),
    read_by_sender: r.read_by_sender === null ? null : !!r.read_by_sender,
    failed: !!r.failed,
    delivered: !!r.delivered,
  };
}

export type NewScheduled = Omit<ScheduledMessage, 'id' | 'failed' | 'delivered' | 'delivered_message_id' | 'reminder_target_message_id'> & {
  reminder_target_message_id?: number | null;
};

export async function insertScheduled(db: Executor, m: NewScheduled): Promise<number> {
  const row = await db
    .insertInto('scheduled_messages')
    .values({ ...m, to_user_ids: JSON.stringify(m.to_user_ids), failed: false, delivered: false, delivered_message_id: null, reminder_target_message_id: m.reminder_target_message_id ?? null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A sender's scheduled message (or, with `reminder`, reminder), sent or not. */
export async function getSendersScheduled(db: Executor, senderId: number, id: number, reminder = false): Promise<ScheduledMessage | undefined> {
  const r = await db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('id', '=', id)
    .where('sender_id', '=', senderId)
    .where('reminder_target_message_id', reminder ? 'is not' : 'is', null)
    .executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

/** A sender's unsent scheduled messages, or (with `reminders`) reminders, soonest first. */
export async function listPendingScheduled(db: Executor, senderId: number, reminders = false): Promise<ScheduledMessage[]> {
  const rows = await db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('sender_id', '=', senderId)
    .where('delivered', '=', false)
    .where('reminder_target_message_id', reminders ? 'is not' : 'is', null)
    .orderBy('scheduled_timestamp')
    .orderBy('id')
    .execute();
  return rows.map(fromRow);
}

/** Messages whose time has come, oldest first, that have neither been sent nor failed. */
export async function dueScheduled(db: Executor, now: number, limit: number): Promise<ScheduledMessage[]> {
  const rows = await db
    .selectFrom('scheduled_messages')
    .selectAll()
    .where('delivered', '=', false)
    .where('failed', '=', false)
    .where('scheduled_timestamp', '<=', now)
    .orderBy('scheduled_timestamp')
    .limit(limit)
    .execute();
  return rows.map(fromRow);
}

export async function updateScheduled(db: Executor, id: number, fields: Partial<Omit<ScheduledMessage, 'id'>>): Promise<void> {
  const { to_user_ids, ...rest } = fields;
  const values: Record<string, unknown> = { ...rest };
  if (to_user_ids !== undefined) values.to_user_ids = JSON.stringify(to_user_ids);
  await db.updateTable('scheduled_messages').set(values).where('id', '=', id).execute();
}

/** Marks a message sent; false when another process got there first. */
export async function claimScheduled(db: Executor, id: number, messageIdPlaceholder: number | null): Promise<boolean> {
  const res = await db
    .updateTable('scheduled_messages')
    .set({ delivered: true, delivered_message_id: messageIdPlaceholder })
    .where('id', '=', id)
    .where('delivered', '=', false)
    .where('failed', '=', false)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function deleteScheduled(db: Executor, id: number): Promise<void> {
  await db.deleteFrom('scheduled_messages').where('id', '=', id).execute();
}

/** Marks an undelivered message failed; false when it was delivered (or gone) meanwhile. */
export async function markScheduledFailed(db: Executor, id: number): Promise<boolean> {
  const res = await db.updateTable('scheduled_messages').set({ failed: true }).where('id', '=', id).where('delivered', '=', false).executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
