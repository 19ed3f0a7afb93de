// Scheduled messages: created, edited and deleted by their sender, delivered by a worker at
// their time. Every rule of sending is checked when scheduling and again at delivery.
import type { Services } from '../services.js';
import { nowSeconds } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import {
  claimScheduled,
  markScheduledFailed,
  deleteScheduled,
  dueScheduled,
  getSendersScheduled,
  insertScheduled,
  listPendingScheduled,
  updateScheduled,
  type ScheduledMessage,
} from '../store/scheduled.js';
import { BadRequest, ResourceNotFound } from '../errors.js';
import { prepareMessage, type SendTarget } from './messages.js';
import { commitMessage, type PreparedMessage } from './message_write.js';
import { publishAfterCommit } from '../events/publish.js';
import { runPeriodically, type Periodic } from '../lib/periodic.js';
import { deliverReminder } from './reminders.js';
import { formatScheduled } from '../shapes/scheduled.js';

export type ScheduledType = 'stream' | 'direct';

export interface ScheduleRequest {
  type: ScheduledType;
  /** A channel id, or the recipients' user ids. */
  to: number | number[];
  topic: string | undefined;
  content: string;
  scheduledTimestamp: number;
  readBySender?: boolean;
  clientName: string;
}

const NOT_FOUND = 'Scheduled message does not exist';
const ALREADY_SENT = 'Scheduled message was already sent';

/**
 * Zulip's extract_stream_id and extract_direct_message_recipient_ids: a channel is one id (a list,
 * even of one, is refused), direct-message recipients a list.
 */
function targetOf(type: ScheduledType, to: number | number[], topic: string | undefined): SendTarget {
  if (type === 'stream') {
    if (Array.isArray(to)) throw new BadRequest('Invalid data type for channel ID');
    return { kind: 'stream', streamId: to, topic };
  }
  if (!Array.isArray(to)) throw new BadRequest('Invalid data type for recipients');
  return { kind: 'direct', userIds: [...new Set(to)] };
}

const NOT_IN_FUTURE = 'Scheduled delivery time must be in the future.';

function checkFuture(ts: number): void {
  if (ts <= nowSeconds()) throw new BadRequest(NOT_IN_FUTURE);
}

function recipientFields(p: PreparedMessage) {
  return {
    recipient_type: p.stream ? 'stream' : 'direct',
    stream_id: p.stream?.id ?? null,
    to_user_ids: p.stream ? [] : p.dmParticipants.filter((id) => id !== p.sender.id || p.dmParticipants.length === 1),
    topic: p.stream ? p.topic : '',
    content: p.content,
    rendered_content: p.rendered.html,
  };
}

export async function scheduleMessage(services: Services, sender: User, realm: Realm, req: ScheduleRequest): Promise<{ scheduled_message_id: number }> {
  checkFuture(req.scheduledTimestamp);
  const prepared = await prepareMessage(services, sender, realm, {
    target: targetOf(req.type, req.to, req.topic),
    content: req.content,
    clientName: req.clientName,
  });
  return services.database.transaction(async (tx, onCommit) => {
    const row = {
      realm_id: realm.id,
      sender_id: sender.id,
      ...recipientFields(prepared),
      scheduled_timestamp: req.scheduledTimestamp,
      read_by_sender: req.readBySender ?? null,
      sending_client: req.clientName,
    };
    const id = await insertScheduled(tx, row);
    const shaped = formatScheduled({ ...row, id, failed: false, delivered: false, delivered_message_id: null, reminder_target_message_id: null });
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [sender.id], event: { type: 'scheduled_messages', op: 'add', scheduled_messages: [shaped] } });
    return { scheduled_message_id: id };
  });
}

export interface ScheduleEdit {
  type?: ScheduledType;
  to?: number | number[];
  topic?: string;
  content?: string;
  scheduledTimestamp?: number;
}

export async function editScheduledMessage(services: Services, sender: User, realm: Realm, id: number, edit: ScheduleEdit, clientName: string): Promise<void> {
  // Zulip's update_scheduled_message_backend checks the new time before edit_scheduled_message
  // looks the message up (access_scheduled_message finds it even once sent).
  if (edit.scheduledTimestamp !== undefined) checkFuture(edit.scheduledTimestamp);
  const current = await getSendersScheduled(services.database.db, sender.id, id);
  if (!current) throw new ResourceNotFound(NOT_FOUND);
  if (current.delivered) throw new BadRequest(ALREADY_SENT);
  const currentType: ScheduledType = current.recipient_type === 'stream' ? 'stream' : 'direct';
  // A type comes with its recipients (and a channel with its topic): the route checked both.
  const type = edit.type ?? currentType;
  // A message that failed to send must be given a new time; Zulip refuses with the past-time text.
  if (current.failed && edit.scheduledTimestamp === undefined) throw new BadRequest(NOT_IN_FUTURE);
  const to = edit.to ?? (currentType === 'stream' ? current.stream_id! : current.to_user_ids);
  const topic = type === 'stream' ? (edit.topic ?? current.topic) : undefined;
  // The edited message must still be one the sender may send.
  const prepared = await prepareMessage(services, sender, realm, {
    target: targetOf(type, to, topic),
    content: edit.content ?? current.content,
    clientName,
  });
  await services.database.transaction(async (tx, onCommit) => {
    // Delivered (or deleted) since it was read above: edit_scheduled_message's race check, inside the write.
    const locked = await getSendersScheduled(tx, sender.id, id);
    if (!locked) throw new ResourceNotFound(NOT_FOUND);
    if (locked.delivered) throw new BadRequest(ALREADY_SENT);
    const fields = {
      ...recipientFields(prepared),
      scheduled_timestamp: edit.scheduledTimestamp ?? current.scheduled_timestamp,
      failed: false,
    };
    await updateScheduled(tx, id, fields);
    const shaped = formatScheduled({ ...current, ...fields });
    publishAfterCommit(services, onCommit, { realmId: realm.id, userIds: [sender.id], event: { type: 'scheduled_messages', op: 'update', scheduled_message: shaped } });
  });
}

export async function deleteScheduledMessage(services: Services, sender: User, id: number): Promise<void> {
  await services.database.transaction(async (tx, onCommit) => {
    // Zulip's delete_scheduled_message finds the row with access_scheduled_message, which does not
    // ask whether it was sent: deleting one already sent succeeds (and tells the sender again).
    if (!(await getSendersScheduled(tx, sender.id, id))) throw new ResourceNotFound(NOT_FOUND);
    await deleteScheduled(tx, id);
    publishAfterCommit(services, onCommit, { realmId: sender.realm_id, userIds: [sender.id], event: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id } });
  });
}

export async function listScheduledMessages(services: Services, sender: User): Promise<Record<string, unknown>[]> {
  return (await listPendingScheduled(services.database.db, sender.id)).map(formatScheduled);
}

/**
 * Sends one due message. The claim (marking it delivered) happens in the transaction that writes
 * the message, so when several processes race, one commits and the others roll back.
 * A message that can no longer be sent is marked failed; its sender must move its time to retry.
 */
async function deliver(services: Services, m: ScheduledMessage): Promise<void> {
  if (m.reminder_target_message_id !== null) return deliverDueReminder(services, m);
  const realm = await services.cache.realm(m.realm_id);
  const sender = realm ? await services.cache.user(realm.id, m.sender_id) : undefined;
  let prepared: PreparedMessage | undefined;
  let failure: unknown;
  if (!realm || !sender || !sender.is_active || realm.deactivated) failure = new Error('sender or organization gone');
  else {
    try {
      prepared = await prepareMessage(services, sender, realm, {
        target: m.recipient_type === 'stream' ? { kind: 'stream', streamId: m.stream_id!, topic: m.topic } : { kind: 'direct', userIds: m.to_user_ids },
        content: m.content,
        clientName: m.sending_client,
        readBySender: m.read_by_sender ?? undefined,
      });
    } catch (err) {
      failure = err;
    }
  }
  if (prepared) {
    let claimed = false;
    try {
      await commitMessage(services, prepared, {
        alsoInTransaction: async (tx) => {
          claimed = await claimScheduled(tx, m.id, null);
          if (!claimed) throw new AlreadyDelivered();
        },
        thenPublish: { realmId: m.realm_id, userIds: [m.sender_id], event: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: m.id } },
      });
    } catch (err) {
      if (err instanceof AlreadyDelivered) return;
      failure = err;
    }
    if (claimed && !failure) return;
  }
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await markScheduledFailed(tx, m.id))) return;
    publishAfterCommit(services, onCommit, {
      realmId: m.realm_id,
      userIds: [m.sender_id],
      event: { type: 'scheduled_messages', op: 'update', scheduled_message: formatScheduled({ ...m, failed: true }) },
    });
  });
}

class AlreadyDelivered extends Error {}

/** A reminder's delivery; one that cannot be sent is marked failed (no scheduled_messages event). */
async function deliverDueReminder(services: Services, m: ScheduledMessage): Promise<void> {
  try {
    const sent = await deliverReminder(services, m, async (tx) => {
      if (!(await claimScheduled(tx, m.id, null))) throw new AlreadyDelivered();
    });
    if (sent) return;
  } catch (err) {
    if (err instanceof AlreadyDelivered) return;
    console.error(`reminder ${m.id}:`, err);
  }
  await markScheduledFailed(services.database.db, m.id);
}

/** Checks every second for due messages; several processes may run it on one database. */
export function startScheduledDelivery(services: Services, intervalMs = 1000): Periodic {
  return runPeriodically('scheduled delivery', intervalMs, async (self) => {
    const due = await dueScheduled(services.database.db, nowSeconds(), 100);
    for (const m of due) {
      if (self.stopped) return;
      await deliver(services, m).catch((err) => console.error(`scheduled message ${m.id}:`, err));
    }
  });
}
