// Migration 0070: outgoing-webhook bots. Each such bot has one service row (where to POST, in
// which format, and the token the endpoint checks), and every message that triggers a bot leaves
// a row in outgoing_webhook_events, written in the message's own transaction, so a delivery
// survives a restart and several processes can share the work.
import type { Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

export function outgoingWebhooks(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'bot_services')
        .addColumn('bot_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('base_url', 'text', (c) => c.notNull())
        // 1 Zulip's format, 2 Slack-compatible (Zulip's Service.GENERIC / Service.SLACK).
        .addColumn('interface', 'integer', (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('bot_services_bot').on('bot_services').columns(['bot_id']).unique().execute();
      // No foreign key to messages: a message may be deleted while its delivery waits; the
      // worker then drops the row.
      await createTable(db, dialect, 'outgoing_webhook_events')
        .addColumn('realm_id', int, (c) => c.notNull())
        .addColumn('bot_id', int, (c) => c.notNull())
        .addColumn('message_id', int, (c) => c.notNull())
        // 'mention' or 'direct_message'
        .addColumn('trigger', 'text', (c) => c.notNull())
        // Failed attempts so far (timeouts, connection errors, 5xx answers).
        .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_ms', int, (c) => c.notNull())
        // A process working on the row holds it until then; a crashed one's lease runs out.
        .addColumn('claimed_until_ms', int)
        .execute();
      await db.schema.createIndex('outgoing_webhook_events_due').on('outgoing_webhook_events').columns(['next_attempt_ms']).execute();
    },
  };
}
