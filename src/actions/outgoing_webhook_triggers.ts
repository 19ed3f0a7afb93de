// Which outgoing-webhook bots a message triggers, as Zulip's get_service_bot_events decides: an
// active outgoing-webhook bot mentioned in a channel message ("mention"), or among the
// participants of a direct message ("direct_message"). Messages sent by bots trigger nothing,
// so two bots never answer each other forever. The deliveries are queued in the message's own
// transaction: they exist exactly when the message does, and survive a restart.
import type { Services } from '../services.js';
import type { Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import { BOT_TYPE, type User } from '../store/users.js';
import { enqueueWebhookEvents } from '../store/outgoing_webhooks.js';
import type { OnCommit } from '../events/publish.js';

export interface WebhookTrigger {
  botId: number;
  trigger: 'mention' | 'direct_message';
}

export function outgoingWebhookTriggers(sender: User, users: Map<number, User>, mentioned: ReadonlySet<number>, dmParticipants: readonly number[]): WebhookTrigger[] {
  if (sender.is_bot) return [];
  const isService = (id: number) => {
    const u = users.get(id);
    return !!u && u.is_active && u.is_bot && u.bot_type === BOT_TYPE.outgoing_webhook;
  };
  const out: WebhookTrigger[] = [];
  for (const id of mentioned) if (isService(id)) out.push({ botId: id, trigger: 'mention' });
  for (const id of dmParticipants) if (id !== sender.id && isService(id)) out.push({ botId: id, trigger: 'direct_message' });
  return out;
}

/** Queues the deliveries in the message's transaction; this server's worker is woken after the commit. */
export async function enqueueTriggered(services: Services, tx: Transaction<DB>, onCommit: OnCommit, realmId: number, messageId: number, triggers: readonly WebhookTrigger[]): Promise<void> {
  await enqueueWebhookEvents(
    tx,
    triggers.map((t) => ({ realm_id: realmId, bot_id: t.botId, message_id: messageId, trigger: t.trigger })),
    Date.now(),
  );
  onCommit(() => services.jobs.outgoingWebhooks?.poke());
}
