// Migration 0001: the core schema (organizations, users, groups, channels, messages, flags).
import { sql, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

export function initial(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'realms')
        .addColumn('string_id', 'text', (c) => c.notNull().unique())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('date_created', 'bigint', (c) => c.notNull())
        .addColumn('deactivated', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();

      await createTable(db, dialect, 'users')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('full_name', 'text', (c) => c.notNull())
        .addColumn('role', int, (c) => c.notNull())
        .addColumn('is_bot', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('bot_type', int)
        .addColumn('bot_owner_id', int, (c) => c.references('users.id'))
        .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
        .addColumn('api_key', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text')
        .addColumn('can_create_users', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('date_joined', 'bigint', (c) => c.notNull())
        .addColumn('timezone', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('avatar_version', int, (c) => c.notNull().defaultTo(1))
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .execute();
      await sql`CREATE UNIQUE INDEX users_realm_email ON users (realm_id, lower(email))`.execute(db);
      await sql`CREATE INDEX users_email ON users (lower(email))`.execute(db);
      await db.schema.createIndex('users_bot_owner').on('users').column('bot_owner_id').execute();

      await createTable(db, dialect, 'user_groups')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('is_system_group', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('named', 'boolean', (c) => c.notNull().defaultTo(true))
        .addColumn('deactivated', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('date_created', 'bigint', (c) => c.notNull())
        .addColumn('creator_id', int)
        .addColumn('can_add_members_group', int)
        .addColumn('can_join_group', int)
        .addColumn('can_leave_group', int)
        .addColumn('can_manage_group', int)
        .addColumn('can_mention_group', int)
        .addColumn('can_remove_members_group', int)
        .execute();
      await db.schema.createIndex('user_groups_realm').on('user_groups').columns(['realm_id', 'named']).execute();

      await db.schema
        .createTable('group_members')
        .addColumn('group_id', int, (c) => c.notNull().references('user_groups.id'))
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addPrimaryKeyConstraint('group_members_pk', ['group_id', 'user_id'])
        .execute();
      await db.schema.createIndex('group_members_user').on('group_members').column('user_id').execute();

      await db.schema
        .createTable('group_subgroups')
        .addColumn('group_id', int, (c) => c.notNull().references('user_groups.id'))
        .addColumn('subgroup_id', int, (c) => c.notNull().references('user_groups.id'))
        .addPrimaryKeyConstraint('group_subgroups_pk', ['group_id', 'subgroup_id'])
        .execute();
      await db.schema.createIndex('group_subgroups_sub').on('group_subgroups').column('subgroup_id').execute();

      let streams = createTable(db, dialect, 'streams')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('rendered_description', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('invite_only', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('is_web_public', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('history_public_to_subscribers', 'boolean', (c) => c.notNull().defaultTo(true))
        .addColumn('date_created', 'bigint', (c) => c.notNull())
        .addColumn('creator_id', int)
        .addColumn('message_retention_days', int)
        .addColumn('is_archived', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('folder_id', int)
        .addColumn('topics_policy', 'text', (c) => c.notNull().defaultTo('inherit'))
        .addColumn('first_message_id', int);
      for (const g of STREAM_GROUP_SETTINGS) streams = streams.addColumn(g, int, (c) => c.notNull());
      await streams.execute();
      await sql`CREATE UNIQUE INDEX streams_realm_name ON streams (realm_id, lower(name))`.execute(db);

      await db.schema
        .createTable('default_streams')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('stream_id', int, (c) => c.notNull().references('streams.id'))
        .addPrimaryKeyConstraint('default_streams_pk', ['realm_id', 'stream_id'])
        .execute();

      await createTable(db, dialect, 'subscriptions')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('stream_id', int, (c) => c.notNull().references('streams.id'))
        .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
        .addColumn('color', 'text', (c) => c.notNull())
        .addColumn('is_muted', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('pin_to_top', 'boolean', (c) => c.notNull().defaultTo(false))
        .addColumn('desktop_notifications', 'boolean')
        .addColumn('audible_notifications', 'boolean')
        .addColumn('push_notifications', 'boolean')
        .addColumn('email_notifications', 'boolean')
        .addColumn('wildcard_mentions_notify', 'boolean')
        .addUniqueConstraint('subscriptions_user_stream', ['user_id', 'stream_id'])
        .execute();
      await db.schema.createIndex('subscriptions_stream').on('subscriptions').columns(['stream_id', 'active']).execute();

      // Zulip's Recipient: one id per conversation target (a channel, or a set of direct-message
      // participants), reported to clients as a message's recipient_id.
      await createTable(db, dialect, 'recipients')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('type', int, (c) => c.notNull())
        .addColumn('type_id', int, (c) => c.notNull())
        .addUniqueConstraint('recipients_type', ['type', 'type_id'])
        .execute();

      await createTable(db, dialect, 'direct_message_groups')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('user_ids_key', 'text', (c) => c.notNull())
        .addUniqueConstraint('dm_groups_key', ['realm_id', 'user_ids_key'])
        .execute();

      await createTable(db, dialect, 'messages')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('sender_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('recipient_type', 'text', (c) => c.notNull())
        .addColumn('recipient_id', int, (c) => c.notNull().references('recipients.id'))
        .addColumn('stream_id', int, (c) => c.references('streams.id'))
        .addColumn('dm_group_id', int, (c) => c.references('direct_message_groups.id'))
        .addColumn('topic', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('rendered_content', 'text', (c) => c.notNull())
        .addColumn('date_sent', 'bigint', (c) => c.notNull())
        .addColumn('last_edit_time', 'bigint')
        .addColumn('sending_client', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      await db.schema.createIndex('messages_stream').on('messages').columns(['stream_id', 'id']).execute();
      await sql`CREATE INDEX messages_stream_topic ON messages (stream_id, lower(topic), id)`.execute(db);
      await db.schema.createIndex('messages_dm_group').on('messages').columns(['dm_group_id', 'id']).execute();
      await db.schema.createIndex('messages_sender').on('messages').columns(['realm_id', 'sender_id', 'id']).execute();

      await db.schema
        .createTable('user_messages')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('message_id', int, (c) => c.notNull().references('messages.id'))
        .addColumn('flags', int, (c) => c.notNull().defaultTo(0))
        .addPrimaryKeyConstraint('user_messages_pk', ['user_id', 'message_id'])
        // The busiest table: in SQLite, clustering rows on the primary key saves a b-tree per insert.
        .$call((b) => (dialect === 'sqlite' ? b.modifyEnd(sql`without rowid`) : b))
        .execute();
      await db.schema.createIndex('user_messages_message').on('user_messages').column('message_id').execute();
      // Partial indexes for the flag narrows and the unread counts that /register computes.
      await sql`CREATE INDEX user_messages_unread ON user_messages (user_id, message_id) WHERE (flags & 1) = 0`.execute(db);
      await sql`CREATE INDEX user_messages_starred ON user_messages (user_id, message_id) WHERE (flags & 2) <> 0`.execute(db);
      await sql`CREATE INDEX user_messages_mentioned ON user_messages (user_id, message_id) WHERE (flags & 8) <> 0 OR (flags & 16) <> 0`.execute(db);
    },
  };
}

/** The channel permission settings, each a user-group id (named or anonymous). */
export const STREAM_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_create_topic_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_remove_subscribers_group',
  'can_resolve_topics_group',
  'can_send_message_group',
  'can_subscribe_group',
] as const;

