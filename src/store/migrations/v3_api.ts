// Migrations 0015–0019: reactions and custom emoji, uploads, search, reminders, default channels and profile fields.
import { sql, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

/**
 * Channel email addresses (one token per channel and sender), organization defaults for new
 * users' settings, and custom profile fields with each user's values.
 */
export function defaultChannelsProfileFields(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'channel_email_tokens')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('stream_id', int, (c) => c.notNull().references('streams.id'))
        // 0 stands for the email gateway (Zulip's default sender).
        .addColumn('sender_id', int, (c) => c.notNull())
        .addColumn('creator_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('token', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('channel_email_tokens_stream_sender').unique().on('channel_email_tokens').columns(['stream_id', 'sender_id']).execute();
      await db.schema
        .createTable('realm_user_defaults')
        .addColumn('realm_id', int, (c) => c.primaryKey().references('realms.id'))
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      await createTable(db, dialect, 'custom_profile_fields')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('hint', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('field_type', int, (c) => c.notNull())
        .addColumn('field_data', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('order_index', int, (c) => c.notNull())
        .addColumn('display_in_profile_summary', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('required', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('editable_by_user', 'boolean', (c) => c.notNull().defaultTo(true))
        .addColumn('use_for_user_matching', 'boolean', (c) => c.notNull().defaultTo(false))
        .execute();
      await db.schema.createIndex('custom_profile_fields_realm').on('custom_profile_fields').columns(['realm_id', 'order_index']).execute();
      await createTable(db, dialect, 'custom_profile_field_values')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('field_id', int, (c) => c.notNull().references('custom_profile_fields.id'))
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('rendered_value', 'text')
        .execute();
      await db.schema.createIndex('custom_profile_field_values_user_field').unique().on('custom_profile_field_values').columns(['user_id', 'field_id']).execute();
      await db.schema.createIndex('custom_profile_field_values_field').on('custom_profile_field_values').columns(['field_id']).execute();
      await db.schema.createIndex('custom_profile_field_values_realm').on('custom_profile_field_values').columns(['realm_id']).execute();
    },
  };
}

/**
 * Reminders: a scheduled message that names the message it reminds about (null for ordinary
 * scheduled messages). Also an index for finding every user's visibility policy for one topic
 * (topic deletion and moves).
 */
export function reminders(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await db.schema.alterTable('scheduled_messages').addColumn('reminder_target_message_id', int).execute();
      await sql`CREATE INDEX user_topics_stream_topic ON user_topics (stream_id, lower(topic_name))`.execute(db);
    },
  };
}

/**
 * Message search: has_link/has_image/has_attachment (computed from the rendered HTML at send and
 * edit) with partial indexes, and full-text search over topic and content: an FTS5 table kept in
 * sync by triggers on SQLite, an expression GIN index on PostgreSQL (store/search.ts builds both).
 */
export function messageSearch(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      for (const col of ['has_link', 'has_image', 'has_attachment']) {
        await db.schema.alterTable('messages').addColumn(col, 'boolean', (c) => c.notNull().defaultTo(false)).execute();
      }
      await sql`UPDATE messages SET has_link = (rendered_content LIKE '%<a %href=%'), has_image = (rendered_content LIKE '%message_inline_image%'), has_attachment = (rendered_content LIKE '%/user_uploads/%')`.execute(db);
      for (const col of ['has_link', 'has_image', 'has_attachment']) {
        await sql`CREATE INDEX ${sql.raw(`messages_${col}`)} ON messages (realm_id, id) WHERE ${sql.raw(col)} = true`.execute(db);
      }
      // GET /messages with anchor=date: the first message of the organization since a time.
      await db.schema.createIndex('messages_realm_date').on('messages').columns(['realm_id', 'date_sent']).execute();
      if (dialect === 'postgres') {
        await sql`CREATE INDEX messages_search ON messages USING gin (to_tsvector('english'::regconfig, topic || ' ' || content))`.execute(db);
      } else {
        await sql`CREATE VIRTUAL TABLE messages_fts USING fts5(topic, content, content='messages', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`.execute(db);
        await sql`CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
          INSERT INTO messages_fts(rowid, topic, content) VALUES (new.id, new.topic, new.content); END`.execute(db);
        await sql`CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
          INSERT INTO messages_fts(messages_fts, rowid, topic, content) VALUES ('delete', old.id, old.topic, old.content); END`.execute(db);
        await sql`CREATE TRIGGER messages_fts_update AFTER UPDATE OF topic, content ON messages BEGIN
          INSERT INTO messages_fts(messages_fts, rowid, topic, content) VALUES ('delete', old.id, old.topic, old.content);
          INSERT INTO messages_fts(rowid, topic, content) VALUES (new.id, new.topic, new.content); END`.execute(db);
        await sql`INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')`.execute(db);
      }
    },
  };
}

/** Uploaded files and the messages that link them (Zulip's Attachment and its messages relation). */
export function attachments(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'attachments')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('owner_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('path_id', 'text', (c) => c.notNull().unique())
        .addColumn('file_name', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('create_time', 'bigint', (c) => c.notNull())
        // Signs the short-lived URLs GET /api/v1/user_uploads/… hands out (shared by every process).
        .addColumn('url_secret', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('attachments_owner').on('attachments').column('owner_id').execute();
      await db.schema.createIndex('attachments_realm').on('attachments').column('realm_id').execute();
      await db.schema
        .createTable('attachment_messages')
        .addColumn('attachment_id', int, (c) => c.notNull().references('attachments.id').onDelete('cascade'))
        .addColumn('message_id', int, (c) => c.notNull().references('messages.id').onDelete('cascade'))
        .addPrimaryKeyConstraint('attachment_messages_pk', ['attachment_id', 'message_id'])
        .execute();
      await db.schema.createIndex('attachment_messages_message').on('attachment_messages').column('message_id').execute();
    },
  };
}

/** Emoji reactions on messages, organizations' custom emoji, users' statuses. */
export function emojiReactionsStatus(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'realm_emoji')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('author_id', int, (c) => c.references('users.id'))
        .addColumn('file_name', 'text')
        .addColumn('is_animated', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('deactivated', 'boolean', (c) => c.notNull().defaultTo(false))
        .execute();
      await db.schema.createIndex('realm_emoji_realm_name').on('realm_emoji').columns(['realm_id', 'name']).execute();
      await createTable(db, dialect, 'reactions')
        .addColumn('message_id', int, (c) => c.notNull().references('messages.id'))
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('emoji_name', 'text', (c) => c.notNull())
        .addColumn('emoji_code', 'text', (c) => c.notNull())
        .addColumn('reaction_type', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('reactions_message_user_emoji').unique().on('reactions').columns(['message_id', 'user_id', 'reaction_type', 'emoji_code']).execute();
      await db.schema
        .createTable('user_status')
        .addColumn('user_id', int, (c) => c.primaryKey().references('users.id'))
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('status_text', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('emoji_name', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('emoji_code', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('reaction_type', 'text', (c) => c.notNull().defaultTo('unicode_emoji'))
        .addColumn('timestamp', int, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('user_status_realm').on('user_status').columns(['realm_id']).execute();
    },
  };
}

