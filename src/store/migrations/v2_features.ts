// Migrations 0002–0014: drafts, scheduled messages, topics, muting, views, folders, email changes, push tokens, playgrounds, linkifiers, presence, alert words, edit history.
import { sql, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

/** Drafts and saved snippets: per-user, synchronized across a user's clients. */
export function draftsAndSnippets(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'drafts')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('to_ids', 'text', (c) => c.notNull())
        .addColumn('topic', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('last_edit_time', int, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('drafts_user').on('drafts').columns(['user_id', 'id']).execute();
      await createTable(db, dialect, 'saved_snippets')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('date_created', int, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('saved_snippets_user').on('saved_snippets').columns(['user_id', 'id']).execute();
    },
  };
}

/** Messages to be sent later; a row is claimed in the same transaction that sends it. */
export function scheduledMessages(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'scheduled_messages')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('sender_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('recipient_type', 'text', (c) => c.notNull())
        .addColumn('stream_id', int, (c) => c.references('streams.id'))
        .addColumn('to_user_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('topic', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('rendered_content', 'text', (c) => c.notNull())
        .addColumn('scheduled_timestamp', int, (c) => c.notNull())
        .addColumn('read_by_sender', 'boolean')
        .addColumn('sending_client', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('failed', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('delivered', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('delivered_message_id', int)
        .execute();
      await db.schema.createIndex('scheduled_messages_due').on('scheduled_messages').columns(['delivered', 'failed', 'scheduled_timestamp']).execute();
      await db.schema.createIndex('scheduled_messages_sender').on('scheduled_messages').columns(['sender_id', 'delivered']).execute();
    },
  };
}

/** Each user's visibility policy for topics (muted, unmuted, followed). */
export function userTopics(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'user_topics')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('stream_id', int, (c) => c.notNull().references('streams.id'))
        .addColumn('topic_name', 'text', (c) => c.notNull())
        .addColumn('visibility_policy', int, (c) => c.notNull())
        .addColumn('last_updated', int, (c) => c.notNull())
        .execute();
      await sql`CREATE UNIQUE INDEX user_topics_key ON user_topics (user_id, stream_id, lower(topic_name))`.execute(db);
    },
  };
}

/** Users a user has muted. */
export function mutedUsers(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await db.schema
        .createTable('muted_users')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('muted_user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('date_muted', int, (c) => c.notNull())
        .addPrimaryKeyConstraint('muted_users_pk', ['user_id', 'muted_user_id'])
        .execute();
      await db.schema.createIndex('muted_users_muted').on('muted_users').column('muted_user_id').execute();
    },
  };
}

/** Users' navigation views: overrides of built-in views and custom views. */
export function navigationViews(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'navigation_views')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('fragment', 'text', (c) => c.notNull())
        .addColumn('is_pinned', 'boolean', (c) => c.notNull())
        .addColumn('name', 'text')
        .addUniqueConstraint('navigation_views_user_fragment', ['user_id', 'fragment'])
        .execute();
    },
  };
}

/** Channel folders, which group channels in the clients' sidebars. */
export function channelFolders(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'channel_folders')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('rendered_description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('order_index', int, (c) => c.notNull())
        .addColumn('date_created', int, (c) => c.notNull())
        .addColumn('creator_id', int)
        .addColumn('is_archived', 'boolean', (c) => c.notNull().defaultTo(false))
        .execute();
      await db.schema.createIndex('channel_folders_realm').on('channel_folders').columns(['realm_id', 'order_index']).execute();
    },
  };
}

/** Pending email-address changes, confirmed through a link sent to the new address. */
export function emailChanges(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'email_changes')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('new_email', 'text', (c) => c.notNull())
        .addColumn('confirmation_key', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', int, (c) => c.notNull())
        .addColumn('used', 'boolean', (c) => c.notNull().defaultTo(false))
        .execute();
    },
  };
}

/** Mobile push notification device tokens, per user. */
export function pushTokens(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'push_device_tokens')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('kind', int, (c) => c.notNull())
        .addColumn('token', 'text', (c) => c.notNull())
        .addColumn('appid', 'text')
        .addColumn('last_updated', int, (c) => c.notNull())
        .addUniqueConstraint('push_device_tokens_key', ['user_id', 'kind', 'token'])
        .execute();
    },
  };
}

/** Code playgrounds: links from code blocks of a language to an external runner. */
export function playgrounds(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'realm_playgrounds')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('pygments_language', 'text', (c) => c.notNull())
        .addColumn('url_template', 'text', (c) => c.notNull())
        .addUniqueConstraint('realm_playgrounds_key', ['realm_id', 'pygments_language', 'name'])
        .execute();
    },
  };
}

/** Linkifiers: patterns that turn text into links, in the organization's order. */
export function linkifiers(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'linkifiers')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('pattern', 'text', (c) => c.notNull())
        .addColumn('url_template', 'text', (c) => c.notNull())
        .addColumn('example_input', 'text')
        .addColumn('reverse_template', 'text')
        .addColumn('alternative_url_templates', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('order_index', int, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('linkifiers_realm').on('linkifiers').columns(['realm_id', 'order_index']).execute();
    },
  };
}

/** Users' presence (last active, last connected) and the per-organization update counter. */
export function presence(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await db.schema
        .createTable('user_presence')
        .addColumn('user_id', int, (c) => c.primaryKey().references('users.id'))
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('last_active_time', int)
        .addColumn('last_connected_time', int)
        .addColumn('last_update_id', int, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('user_presence_realm').on('user_presence').columns(['realm_id', 'last_update_id']).execute();
    },
  };
}

/** Users' alert words: messages containing one are flagged for them. */
export function alertWords(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'alert_words')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('word', 'text', (c) => c.notNull())
        .execute();
      await sql`CREATE UNIQUE INDEX alert_words_user_word ON alert_words (user_id, lower(word))`.execute(db);
    },
  };
}

/** Message edit history: a JSON list of what each edit changed, newest last. */
export function editHistory(_dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      await db.schema.alterTable('messages').addColumn('edit_history', 'text').execute();
    },
  };
}

