// Opens the database (SQLite through better-sqlite3, or PostgreSQL through pg) behind one Kysely
// query builder, and runs transactions whose after-commit hooks carry the events out.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import type { DB } from './schema.js';
import { migrate } from './migrations.js';

export type DialectName = 'sqlite' | 'postgres';
export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  readonly dialect: DialectName;
  readonly db: Kysely<DB>;
  /** Runs fn in one transaction; the hooks it registers with onCommit run only after the commit. */
  transaction<T>(fn: (tx: Transaction<DB>, onCommit: (hook: () => void) => void) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// PostgreSQL's int8 (bigint, count(*)) comes back as a string by default; our values fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));

/** better-sqlite3 compiles a statement on every prepare(); keep the compiled ones, keyed by SQL text. */
function cachingSqlite(raw: SqliteDatabase.Database) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const toSqlite = (params: ReadonlyArray<unknown>) =>
    params.map((p) => (p === true ? 1 : p === false ? 0 : p));
  return {
    close: () => raw.close(),
    prepare(text: string) {
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = raw.prepare(text);
        if (cache.size > 2000) cache.clear();
        cache.set(text, stmt);
      }
      const s = stmt;
      return {
        reader: s.reader,
        all: (params: ReadonlyArray<unknown>) => s.all(...toSqlite(params)),
        run: (params: ReadonlyArray<unknown>) => s.run(...toSqlite(params)),
        iterate: (params: ReadonlyArray<unknown>) => s.iterate(...toSqlite(params)),
      };
    },
  };
}

export interface OpenOptions {
  /** PostgreSQL only: the schema to use (created if missing); tests give each server its own. */
  schema?: string;
}

export async function openDatabase(url: string, opts: OpenOptions = {}): Promise<Database> {
  let kysely: Kysely<DB>;
  let dialect: DialectName;
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    dialect = 'postgres';
    const schema = opts.schema;
    if (schema && !/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`bad schema name ${schema}`);
    if (schema) {
      const setup = new pg.Client({ connectionString: url });
      await setup.connect();
      try {
        await setup.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      } finally {
        await setup.end();
      }
    }
    const pool = new pg.Pool({
      connectionString: url,
      max: 10,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    const file = url.replace(/^sqlite:(\/\/)?/, '');
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    const raw = new SqliteDatabase(file);
    raw.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before the client hears success.
    raw.pragma('synchronous = FULL');
    raw.pragma('foreign_keys = ON');
    raw.pragma('busy_timeout = 5000');
    kysely = new Kysely<DB>({ dialect: new SqliteDialect({ database: cachingSqlite(raw) }) });
  }
  await migrate(kysely, dialect);
  return {
    dialect,
    db: kysely,
    async transaction(fn) {
      const hooks: Array<() => void> = [];
      const result = await kysely.transaction().execute((tx) => fn(tx, (h) => hooks.push(h)));
      for (const hook of hooks) hook();
      return result;
    },
    close: () => kysely.destroy(),
  };
}

/** Drops a PostgreSQL schema made for one test server. */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export { sql };
