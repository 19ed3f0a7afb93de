// SQL for submessages (migrations/v40_submessages.ts): a widget's definition and its changes.
import type { Executor } from './db.js';

export interface SubmessageRow {
  id: number;
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
}

function fromRow(r: { id: number; message_id: number; sender_id: number; msg_type: string; content: string }): SubmessageRow {
  return { id: Number(r.id), message_id: Number(r.message_id), sender_id: Number(r.sender_id), msg_type: r.msg_type, content: r.content };
}

export async function insertSubmessage(db: Executor, s: Omit<SubmessageRow, 'id'>): Promise<number> {
  const row = await db.insertInto('submessages').values(s).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}

/** The message's first `widget` submessage: the widget's definition. */
export async function widgetSubmessage(db: Executor, messageId: number): Promise<SubmessageRow | undefined> {
  const r = await db.selectFrom('submessages').selectAll().where('message_id', '=', messageId).where('msg_type', '=', 'widget').orderBy('id').limit(1).executeTakeFirst();
  return r ? fromRow(r) : undefined;
}

/** Whether this user has attached any submessage to the message. */
export async function hasSubmessageFrom(db: Executor, messageId: number, senderId: number): Promise<boolean> {
  const r = await db.selectFrom('submessages').select('id').where('message_id', '=', messageId).where('sender_id', '=', senderId).limit(1).executeTakeFirst();
  return r !== undefined;
}

/** Whether the message carries any submessage (Zulip's is_widget_message). */
export async function hasSubmessages(db: Executor, messageId: number): Promise<boolean> {
  const r = await db.selectFrom('submessages').select('id').where('message_id', '=', messageId).limit(1).executeTakeFirst();
  return r !== undefined;
}

/** The API's form of a submessage. */
export function submessageForClient(s: SubmessageRow): Record<string, unknown> {
  return { id: s.id, message_id: s.message_id, sender_id: s.sender_id, msg_type: s.msg_type, content: s.content };
}
