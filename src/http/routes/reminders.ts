// Reminders about messages.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { ResourceNotFound } from '../../errors.js';
import { createReminder, deleteReminder, listReminders } from '../../actions/reminders.js';

export function registerReminderRoutes(r: Router): void {
  r.get('/reminders', async ({ services, user }) => ({ reminders: await listReminders(services, user) }));

  r.post('/reminders', async ({ params, services, user, realm, clientName }) => {
    const messageId = params.int('message_id');
    const scheduledTimestamp = params.int('scheduled_delivery_timestamp');
    const note = params.optStr('note') ?? '';
    return createReminder(services, user, realm, { messageId, scheduledTimestamp, note, clientName });
  });

  r.delete('/reminders/{reminder_id}', async (ctx) => {
    const id = pathInt(ctx, 'reminder_id', () => new ResourceNotFound('Reminder does not exist'));
    await deleteReminder(ctx.services, ctx.user, id);
    return {};
  });
}
