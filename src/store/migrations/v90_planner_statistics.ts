// Migration 0090: PostgreSQL statistics on a user_messages row's unread bit. The unread partial
// index is on `(flags & 1) = 0`, and without statistics on that expression the planner guesses a
// fixed 0.5% of a user's rows: for someone with a long, read history it expected thousands of
// unread rows where there were none, and /register's unread query ran as a parallel sort (~50 ms,
// mostly starting the workers) instead of one backward scan of the partial index (~0.05 ms).
// Expression statistics need PostgreSQL 14; older servers and SQLite (whose planner takes the
// partial index for this query anyway) skip it.
import { sql, type Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import type { Db } from './helpers.js';

export function unreadStatistics(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      if (dialect !== 'postgres') return;
      const version = await sql<{ v: string }>`SELECT current_setting('server_version_num') AS v`.execute(db);
      if (Number(version.rows[0]?.v) < 140000) return;
      await sql`CREATE STATISTICS user_messages_unread_bit ON ((flags & 1)) FROM user_messages`.execute(db);
      // Gathered now, so the first queries after the upgrade plan with them (ANALYZE only reads a sample).
      await sql`ANALYZE user_messages`.execute(db);
    },
  };
}
