// Migration 0050: unique indexes for the names a request can race on (issue 15). Two requests
// that both pass a name check before either commits would otherwise both write: the index makes
// the second fail, and store/conflicts.ts turns that into the loser's ordinary error. Duplicates
// an earlier race left behind are renamed (or retired) first, keeping the oldest as it was.
import { sql, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import type { Db } from './helpers.js';

/** Renames every row but the oldest of a group of rows the new index would call duplicates. */
async function renameDuplicates(db: Db, table: string, key: string, filter: string): Promise<void> {
  const t = sql.raw(table);
  const k = (alias: string) => sql.raw(key.replace(/\$/g, alias));
  const f = (alias: string) => sql.raw(filter.replace(/\$/g, alias));
  await sql`UPDATE ${t} SET name = name || ' (' || CAST(id AS TEXT) || ')'
    WHERE ${f(table)} AND EXISTS (SELECT 1 FROM ${t} o WHERE ${f('o')} AND ${k('o')} = ${k(table)} AND o.id < ${t}.id)`.execute(db);
}

export function uniqueNames(_dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      await renameDuplicates(db, 'user_groups', '$.realm_id || \'/\' || lower($.name)', '$.named AND NOT $.deactivated');
      await sql`CREATE UNIQUE INDEX user_groups_realm_name ON user_groups (realm_id, lower(name)) WHERE named AND NOT deactivated`.execute(db);

      await renameDuplicates(db, 'channel_folders', '$.realm_id || \'/\' || lower($.name)', 'NOT $.is_archived');
      await sql`CREATE UNIQUE INDEX channel_folders_realm_name ON channel_folders (realm_id, lower(name)) WHERE NOT is_archived`.execute(db);

      await renameDuplicates(db, 'custom_profile_fields', '$.realm_id || \'/\' || $.name', '1 = 1');
      await sql`CREATE UNIQUE INDEX custom_profile_fields_realm_name ON custom_profile_fields (realm_id, name)`.execute(db);

      // A second active emoji of one name was never reachable (the first one wins): retire it.
      await sql`UPDATE realm_emoji SET deactivated = ${true} WHERE NOT deactivated AND file_name IS NOT NULL AND EXISTS (
        SELECT 1 FROM realm_emoji o WHERE NOT o.deactivated AND o.file_name IS NOT NULL AND o.realm_id = realm_emoji.realm_id AND o.name = realm_emoji.name AND o.id < realm_emoji.id)`.execute(db);
      await sql`CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (realm_id, name) WHERE NOT deactivated AND file_name IS NOT NULL`.execute(db);
    },
  };
}
