// Full-text search on `messages` (the `search` narrow operator), as SQL. The words arrive already
// cut and lowercased (queries/search.ts parses the operand), and reach the database only as bound
// values. SQLite searches the FTS5 table messages_fts, PostgreSQL the GIN index on
// to_tsvector('english', topic || ' ' || content) (both made in migration 0017_message_search).
import { sql, type Expression, type SqlBool } from 'kysely';
import { CUSTOM_PLAN } from './db.js';
import type { DialectName } from './dialect.js';

export interface SearchQuery {
  /** Lowercased words, in order, without repeats. */
  words: string[];
  /** Quoted phrases, as written. */
  phrases: string[];
}

function likePattern(s: string): string {
  return `%${s.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The condition on `messages` for a search; a search without any word matches nothing. */
export function searchCondition(dialect: DialectName, q: SearchQuery): Expression<SqlBool> {
  if (q.words.length === 0) return sql<SqlBool>`1 = 0`;
  let cond: Expression<SqlBool>;
  if (dialect === 'postgres') {
    // Planned for these words each time: rare words read the GIN index, common ones walk the window.
    cond = sql<SqlBool>`${sql.raw(CUSTOM_PLAN)} to_tsvector('english'::regconfig, messages.topic || ' ' || messages.content) @@ plainto_tsquery('english'::regconfig, ${q.words.join(' ')})`;
  } else {
    // Each word quoted: FTS5 reads it as a string, never as an operator or column filter.
    const match = q.words.map((w) => `"${w}"`).join(' ');
    cond = sql<SqlBool>`messages.id in (select rowid from messages_fts where messages_fts match ${match})`;
  }
  for (const phrase of q.phrases) {
    const p = likePattern(phrase);
    cond = sql<SqlBool>`(${cond} and (lower(messages.content) like ${p} escape '\\' or lower(messages.topic) like ${p} escape '\\'))`;
  }
  return cond;
}
