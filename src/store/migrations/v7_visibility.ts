// Migration 0023: who is in each direct-message conversation, as rows, so "the people a user has
// direct messages with" (what restricted guests may see) is an index lookup, not a key scan.
import { type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { intColumn, type Db } from './helpers.js';

export function dmGroupMembers(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await db.schema
        .createTable('direct_message_group_members')
        .addColumn('group_id', int, (c) => c.notNull().references('direct_message_groups.id'))
        .addColumn('user_id', int, (c) => c.notNull().references('users.id'))
        .addPrimaryKeyConstraint('direct_message_group_members_pk', ['group_id', 'user_id'])
        .execute();
      await db.schema.createIndex('direct_message_group_members_user').on('direct_message_group_members').columns(['user_id', 'group_id']).execute();
      // Existing conversations: their members are the ids in their keys.
      let after = 0;
      for (;;) {
        const groups = await db.selectFrom('direct_message_groups').select(['id', 'user_ids_key']).where('id', '>', after).orderBy('id').limit(1000).execute();
        if (groups.length === 0) break;
        const rows = groups.flatMap((g) => String(g.user_ids_key).split(',').filter(Boolean).map((id) => ({ group_id: g.id, user_id: Number(id) })));
        for (let i = 0; i < rows.length; i += 500) await db.insertInto('direct_message_group_members').values(rows.slice(i, i + 500)).execute();
        after = Number(groups[groups.length - 1]!.id);
      }
    },
  };
}
