// Migrations 0080–0089: what notifications keep between a request and the mail or push it causes.
import { type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

/** 0080: one-time password reset links; only a hash of the token is stored. */
export function passwordResets(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'password_resets')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', int, (c) => c.notNull())
        .addColumn('used', 'boolean', (c) => c.notNull().defaultTo(false))
        .execute();
      await db.schema.createIndex('password_resets_user').on('password_resets').column('user_id').execute();
    },
  };
}

/**
 * 0081: every outgoing email, as a persisted queue. A row is sent once its send_after_ms has
 * passed, by whichever process claims it first (claimed_until_ms is a lease: a process that dies
 * mid-send lets another retry after it); failures are retried with a growing delay.
 */
export function emailOutbox(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'email_outbox')
        .addColumn('realm_id', int)
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('to_address', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text_body', 'text', (c) => c.notNull())
        .addColumn('html_body', 'text')
        .addColumn('created_ms', int, (c) => c.notNull())
        .addColumn('send_after_ms', int, (c) => c.notNull())
        .addColumn('claimed_until_ms', int)
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('sent_ms', int)
        .addColumn('failed', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('last_error', 'text')
        .execute();
      // The runner's scan: unsent rows in due order.
      await db.schema.createIndex('email_outbox_due').on('email_outbox').columns(['sent_ms', 'failed', 'send_after_ms']).execute();
    },
  };
}

/**
 * 0082: messages waiting to become a missed-message email, one row per recipient and message,
 * written in the send transaction. The runner takes all of a person's rows once the first is due
 * (a claim token with a lease, so one process handles them) and turns each conversation into one
 * email. An index on user_topics by channel lets the send find a topic's followers without a scan.
 */
export function missedMessageNotices(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'missed_message_notices')
        .addColumn('realm_id', int, (c) => c.notNull())
        .addColumn('user_id', int, (c) => c.notNull())
        .addColumn('message_id', int, (c) => c.notNull())
        .addColumn('trigger', 'text', (c) => c.notNull())
        /** The group mentioned, for the "why you got this" line. */
        .addColumn('mentioned_group_id', int)
        .addColumn('due_ms', int, (c) => c.notNull())
        .addColumn('claim_token', 'text')
        .addColumn('claimed_until_ms', int)
        .execute();
      await db.schema.createIndex('missed_message_notices_due').on('missed_message_notices').column('due_ms').execute();
      await db.schema.createIndex('missed_message_notices_user').on('missed_message_notices').columns(['user_id', 'message_id']).execute();
      await db.schema.createIndex('user_topics_stream').on('user_topics').column('stream_id').execute();
    },
  };
}

/**
 * 0083: mobile pushes waiting to go to the push notification service (one row per recipient and
 * message, written in the send transaction; a runner claims each), and the pushes a phone may
 * still show, so reading the message can take them back.
 */
export function pushQueue(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'push_queue')
        .addColumn('realm_id', int, (c) => c.notNull())
        .addColumn('user_id', int, (c) => c.notNull())
        .addColumn('message_id', int, (c) => c.notNull())
        .addColumn('trigger', 'text', (c) => c.notNull())
        .addColumn('mentioned_group_id', int)
        .addColumn('due_ms', int, (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('claimed_until_ms', int)
        .execute();
      await db.schema.createIndex('push_queue_due').on('push_queue').column('due_ms').execute();
      await db.schema
        .createTable('push_active')
        .addColumn('user_id', int, (c) => c.notNull())
        .addColumn('message_id', int, (c) => c.notNull())
        .addPrimaryKeyConstraint('push_active_pk', ['user_id', 'message_id'])
        .execute();
    },
  };
}

/** 0084: when each person last got a weekly digest (the claim that makes it one a week, once). */
export function digestSent(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await db.schema
        .createTable('digest_sent')
        .addColumn('user_id', int, (c) => c.primaryKey())
        .addColumn('sent_at', int, (c) => c.notNull())
        .execute();
    },
  };
}
