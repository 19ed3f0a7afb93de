// Migration 0040: submessages, Zulip's small records attached to a message (a widget's definition
// and every vote, option, task or title change made in it), read back in the order they came.
import { type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

export function submessages(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'submessages')
        .addColumn('message_id', int, (c) => c.notNull().references('messages.id'))
        .addColumn('sender_id', int, (c) => c.notNull().references('users.id'))
        .addColumn('msg_type', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('submessages_message').on('submessages').columns(['message_id', 'id']).execute();
    },
  };
}
