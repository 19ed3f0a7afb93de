// Migration 0051: one linkifier per pattern in an organization, as Zulip's unique (realm, pattern).
// Patterns may be long (1,000 characters of up to 4 bytes), past what a PostgreSQL b-tree entry
// holds, so PostgreSQL indexes a digest of the pattern; SQLite has no such limit and indexes the
// text. Duplicates left by earlier versions (which allowed them) keep their oldest row.
import { sql, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import type { Db } from './helpers.js';

export function uniqueLinkifierPatterns(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      await sql`DELETE FROM linkifiers WHERE EXISTS (
        SELECT 1 FROM linkifiers o WHERE o.realm_id = linkifiers.realm_id AND o.pattern = linkifiers.pattern AND o.id < linkifiers.id)`.execute(db);
      if (dialect === 'postgres') {
        await sql`CREATE UNIQUE INDEX linkifiers_realm_pattern ON linkifiers (realm_id, md5(pattern))`.execute(db);
      } else {
        await sql`CREATE UNIQUE INDEX linkifiers_realm_pattern ON linkifiers (realm_id, pattern)`.execute(db);
      }
    },
  };
}
