// Administration: invitations (email invitations and reusable invitation links).
import type { Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

/**
 * One table for both kinds of invitation: an email invitation has an address and is used once; a
 * reusable link (is_multiuse) has none and serves until it expires or is revoked.
 */
export function invites(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'invites')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('referrer_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('is_multiuse', 'boolean', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('invited_as', 'integer', (c) => c.notNull())
        .addColumn('confirmation_key', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', int, (c) => c.notNull())
        .addColumn('expires_at', int)
        /** JSON list of channel ids the new account joins. */
        .addColumn('stream_ids', 'text', (c) => c.notNull())
        /** JSON list of user group ids the new account joins. */
        .addColumn('group_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('include_realm_default_subscriptions', 'boolean', (c) => c.notNull())
        .addColumn('notify_referrer_on_join', 'boolean', (c) => c.notNull())
        .addColumn('welcome_message_custom_text', 'text')
        /** 0 pending, 1 used (email invitations), 2 revoked. */
        .addColumn('status', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('invites_realm_status').on('invites').columns(['realm_id', 'status']).execute();
      await db.schema.createIndex('invites_referrer').on('invites').columns(['referrer_id']).execute();
    },
  };
}
