// Migration 0096: an index for loading an organization's alert words. The alert-word cache is
// filled per organization (`realm_id`, in id order), which scanned the whole table: every
// organization's words on a shared server, once per cache fill after a restart or an invalidation.
import { sql, type Migration } from 'kysely';
import type { Db } from './helpers.js';

export function alertWordsRealm(): Migration {
  return {
    async up(db: Db) {
      await sql`CREATE INDEX alert_words_realm ON alert_words (realm_id, id)`.execute(db);
    },
  };
}
