// Scheduled messages.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { BadRequest, ResourceNotFound } from '../../errors.js';
import { deleteScheduledMessage, editScheduledMessage, listScheduledMessages, scheduleMessage, type ScheduledType } from '../../actions/scheduled.js';

function scheduledType(t: string): ScheduledType {
  if (t === 'stream' || t === 'channel') return 'stream';
  if (t === 'private' || t === 'direct') return 'direct';
  throw new BadRequest('Invalid type');
}

/** `to`: a channel id, or a JSON list of user ids. */
function parseTo(v: unknown, name: string): number | number[] {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) return v as number[];
  throw new BadRequest(`Invalid ${name}`);
}

export function registerScheduledRoutes(r: Router): void {
  r.get('/scheduled_messages', async ({ services, user }) => ({ scheduled_messages: await listScheduledMessages(services, user) }));

  r.post('/scheduled_messages', async ({ params, services, user, realm, clientName }) => {
    const type = scheduledType(params.str('type'));
    const to = params.json('to', parseTo);
    const content = params.str('content', { max: Infinity });
    const topic = params.optStrOrAlias('topic', 'subject');
    const scheduledTimestamp = params.int('scheduled_delivery_timestamp');
    const readBySender = params.optBool('read_by_sender');
    return scheduleMessage(services, user, realm, { type, to, topic, content, scheduledTimestamp, readBySender, clientName });
  });

  r.patch('/scheduled_messages/{scheduled_message_id}', async (ctx) => {
    const { params, services, user, realm, clientName } = ctx;
    const id = pathInt(ctx, 'scheduled_message_id', () => new ResourceNotFound('Scheduled message does not exist'));
    const typeRaw = params.optStr('type');
    const edit = {
      type: typeRaw === undefined ? undefined : scheduledType(typeRaw),
      to: params.optJson('to', parseTo),
      topic: params.optStrOrAlias('topic', 'subject'),
      content: params.optStr('content', { max: Infinity }),
      scheduledTimestamp: params.optInt('scheduled_delivery_timestamp'),
    };
    // Zulip checks these before looking the scheduled message up, whether or not the type changes.
    if (Object.values(edit).every((v) => v === undefined)) throw new BadRequest('Nothing to change');
    if (edit.type !== undefined && edit.to === undefined) throw new BadRequest('Recipient required when updating type of scheduled message.');
    if (edit.type === 'stream' && edit.topic === undefined) throw new BadRequest('Topic required when updating scheduled message type to channel.');
    await editScheduledMessage(services, user, realm, id, edit, clientName);
    return {};
  });

  r.delete('/scheduled_messages/{scheduled_message_id}', async (ctx) => {
    const id = pathInt(ctx, 'scheduled_message_id', () => new ResourceNotFound('Scheduled message does not exist'));
    await deleteScheduledMessage(ctx.services, ctx.user, id);
    return {};
  });
}
