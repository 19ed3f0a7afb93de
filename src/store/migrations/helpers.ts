// What every migration builds with: the table shape with Confab's id column.
import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.js';

export type Db = Kysely<any>;

// PostgreSQL ids and counters are 64-bit like SQLite's integers, so any id a client sends (up to
// 2^53) compares without overflow.
export function idColumn(dialect: DialectName) {
  return dialect === 'postgres' ? ('bigserial' as const) : ('integer' as const);
}

/** A 64-bit integer column (ids that point at rows, timestamps in milliseconds). */
export function intColumn(dialect: DialectName) {
  return dialect === 'postgres' ? ('bigint' as const) : ('integer' as const);
}

export function createTable(db: Db, dialect: DialectName, name: string) {
  return db.schema
    .createTable(name)
    .addColumn('id', idColumn(dialect), (c) => (dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()));
}
