// Migration 0021: organization data exports and the logged-in devices of POST /register_client_device.
import type { Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

export function exportsDevices(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'realm_exports')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('acting_user_id', int, (c) => c.references('users.id'))
        // 1 public, 2 full with consent, 3 full without consent (Zulip's numbering).
        .addColumn('export_type', int, (c) => c.notNull())
        // Milliseconds, so clients get Zulip's fractional UNIX timestamps.
        .addColumn('requested_ms', int, (c) => c.notNull())
        .addColumn('succeeded_ms', int)
        .addColumn('failed_ms', int)
        .addColumn('deleted_ms', int)
        // Below the uploads folder: exports/{realm_id}/{secret}/{file name}.
        .addColumn('file_path', 'text')
        .execute();
      await db.schema.createIndex('realm_exports_realm_requested').on('realm_exports').columns(['realm_id', 'requested_ms']).execute();
      await createTable(db, dialect, 'client_devices')
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('created_at', int, (c) => c.notNull())
        .addColumn('push_key_id', int)
        .addColumn('push_key', 'text')
        .addColumn('push_token_kind', 'text')
        .addColumn('push_token_id', 'text')
        .addColumn('pending_push_token_id', 'text')
        .addColumn('push_token_last_updated_timestamp', int)
        .addColumn('push_registration_error_code', 'text')
        .execute();
      await db.schema.createIndex('client_devices_user').on('client_devices').columns(['user_id']).execute();
    },
  };
}
