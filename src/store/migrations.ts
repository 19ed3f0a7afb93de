// One ordered list of migrations for SQLite and PostgreSQL. Each runs once, recorded by Kysely's
// migrator (which also takes a lock, so several processes starting together do not race).
import { Kysely, sql, type Migration } from 'kysely';
import type { DialectName } from './db.js';

type Db = Kysely<any>;

// PostgreSQL ids and counters are 64-bit like SQLite's integers, so any id a client sends (up to
// 2^53) compares without overflow.
function idColumn(dialect: DialectName) {
  return dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const);
}

function createTable(db: Db, dialect: DialectName, name: string) {
  return db.schema
    .createTable(name)
    .addColumn('id', idColumn(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));
}

function initial(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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

/** Drafts and saved snippets: per-user, synchronized across a user's clients. */
function draftsAndSnippets(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function scheduledMessages(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function userTopics(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function mutedUsers(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function navigationViews(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function channelFolders(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function emailChanges(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function pushTokens(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function playgrounds(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function linkifiers(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function presence(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function alertWords(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function editHistory(_dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      await db.schema.alterTable('messages').addColumn('edit_history', 'text').execute();
    },
  };
}

/**
 * Channel email addresses (one token per channel and sender), organization defaults for new
 * users' settings, and custom profile fields with each user's values.
 */
function defaultChannelsProfileFields(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function reminders(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function messageSearch(dialect: DialectName): Migration {
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
function attachments(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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
function emojiReactionsStatus(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
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

function migrationsFor(dialect: DialectName): Record<string, Migration> {
  return {
    '0001_initial': initial(dialect),
    '0002_drafts_snippets': draftsAndSnippets(dialect),
    '0003_scheduled_messages': scheduledMessages(dialect),
    '0004_user_topics': userTopics(dialect),
    '0005_muted_users': mutedUsers(dialect),
    '0006_navigation_views': navigationViews(dialect),
    '0007_channel_folders': channelFolders(dialect),
    '0008_email_changes': emailChanges(dialect),
    '0009_push_tokens': pushTokens(dialect),
    '0010_playgrounds': playgrounds(dialect),
    '0011_linkifiers': linkifiers(dialect),
    '0012_presence': presence(dialect),
    '0013_alert_words': alertWords(dialect),
    '0014_edit_history': editHistory(dialect),
    '0015_emoji_reactions_status': emojiReactionsStatus(dialect),
    '0016_attachments': attachments(dialect),
    '0017_message_search': messageSearch(dialect),
    '0018_reminders': reminders(dialect),
    '0019_default_channels_profile_fields': defaultChannelsProfileFields(dialect),
  };
}

/**
 * Applies the migrations not yet recorded in confab_migrations, in order, in one transaction that
 * holds a lock (PostgreSQL: an advisory lock; SQLite: an immediate write lock), so servers that
 * start together migrate once. It looks only at its own table, in the connection's own schema.
 */
export async function migrate(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const migrations = migrationsFor(dialect);
  await db.connection().execute(async (conn) => {
    await sql`${sql.raw(dialect === 'sqlite' ? 'BEGIN IMMEDIATE' : 'BEGIN')}`.execute(conn);
    try {
      if (dialect === 'postgres') await sql`SELECT pg_advisory_xact_lock(4242001)`.execute(conn);
      await sql`CREATE TABLE IF NOT EXISTS confab_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`.execute(conn);
      const done = new Set((await sql<{ name: string }>`SELECT name FROM confab_migrations`.execute(conn)).rows.map((r) => r.name));
      for (const [name, migration] of Object.entries(migrations).sort(([a], [b]) => a.localeCompare(b))) {
        if (done.has(name)) continue;
        try {
          await migration.up(conn);
        } catch (err) {
          throw new Error(`migration ${name} failed: ${(err as Error).message}`);
        }
        await sql`INSERT INTO confab_migrations (name, applied_at) VALUES (${name}, ${Math.floor(Date.now() / 1000)})`.execute(conn);
      }
      await sql`COMMIT`.execute(conn);
    } catch (err) {
      await sql`ROLLBACK`.execute(conn).catch(() => undefined);
      throw err;
    }
  });
}
