// Opens the database (SQLite through better-sqlite3, or PostgreSQL through pg) behind one Kysely
// query builder, and runs transactions whose after-commit hooks carry the events out.
import type { DialectName } from './dialect.js';
import { closeSync, fdatasync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Transaction } from 'kysely';
import type { DB } from './schema.js';
import { migrate } from './migrations.js';
import { uniqueConflictOf } from './conflicts.js';
import { Checkpointer } from './checkpoints.js';
import type { WriteTurn } from '../lib/ipc_write_turn.js';

export type Executor = Kysely<DB> | Transaction<DB>;

export interface Database {
  readonly dialect: DialectName;
  readonly db: Kysely<DB>;
  /**
   * Runs fn in one transaction; the hooks it registers with onCommit run only after the commit.
   * `deferred` (SQLite's group commit only) takes rows to insert at the end of the transaction.
   */
  transaction<T>(fn: (tx: Transaction<DB>, onCommit: (hook: () => void) => void, deferred?: DeferredWrites) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The PostgreSQL client, loaded only when a postgres:// URL is opened. */
async function loadPg(): Promise<typeof pg> {
  const mod = (await import('pg')).default;
  // int8 (bigint ids, count(*)) comes back as a string by default; our values fit in a double.
  mod.types.setTypeParser(20, (v: string) => Number(v));
  return mod;
}

/**
 * A SQLite connection's statements run directly, without the query builder's compile and
 * executor: for the few statements every message sends (store functions fall back to Kysely when
 * an executor has none, as on PostgreSQL). Parameters are given as SQLite takes them (no booleans).
 */
export interface DirectSqlite {
  all<R>(text: string, params: readonly unknown[]): R[];
  run(text: string, params: readonly unknown[]): void;
}

/** The connection behind the reader and behind each of the group commit's transactions. */
const directConnections = new WeakMap<Executor, DirectSqlite>();

/** `?, ?, ?` for n parameters. */
export function placeholders(n: number): string {
  return n === 1 ? '?' : Array(n).fill('?').join(', ');
}

/**
 * Rows of one statement written as SQL text with `?` for each parameter, for the few statements
 * every message sends: on a SQLite connection that has one, straight to it (booleans as SQLite
 * stores them); elsewhere through the query builder's executor, which numbers the parameters as
 * the database wants them ($1, $2… on PostgreSQL). The text must hold no other question mark.
 */
export async function queryRows<R>(db: Executor, text: string, params: readonly unknown[]): Promise<R[]> {
  const direct = directConnections.get(db);
  if (direct) return direct.all<R>(text, params.map((p) => (p === true ? 1 : p === false ? 0 : p)));
  const parts = text.split('?');
  if (parts.length !== params.length + 1) throw new Error(`queryRows: ${parts.length - 1} placeholders for ${params.length} parameters`);
  return (await sql<R>(Object.assign(parts, { raw: parts }) as unknown as TemplateStringsArray, ...params).execute(db)).rows;
}

/** better-sqlite3 compiles a statement on every prepare(); keep the compiled ones, keyed by SQL text. */
function cachingSqlite(raw: SqliteDatabase.Database, writer: boolean) {
  const cache = new Map<string, SqliteDatabase.Statement>();
  const toSqlite = (params: ReadonlyArray<unknown>) =>
    params.map((p) => (p === true ? 1 : p === false ? 0 : p));
  const statement = (text: string) => {
    let stmt = cache.get(text);
    if (!stmt) {
      stmt = raw.prepare(text);
      if (cache.size > 2000) cache.clear();
      cache.set(text, stmt);
    }
    return stmt;
  };
  const direct: DirectSqlite = {
    all: <R>(text: string, params: readonly unknown[]) => statement(text).all(params) as R[],
    run: (text, params) => void statement(text).run(params),
  };
  return {
    direct,
    close: () => raw.close(),
    prepare(query: string) {
      // The writer takes the write lock when its transaction begins: a deferred transaction that
      // read first cannot be upgraded once another process has committed (SQLITE_BUSY at once,
      // which no busy timeout waits out), while BEGIN IMMEDIATE waits for the lock like any writer.
      const s = statement(writer && query === 'begin' ? 'begin immediate' : query);
      return {
        reader: s.reader,
        all: (params: ReadonlyArray<unknown>) => s.all(...toSqlite(params)),
        run: (params: ReadonlyArray<unknown>) => s.run(...toSqlite(params)),
        iterate: (params: ReadonlyArray<unknown>) => s.iterate(...toSqlite(params)),
      };
    },
  };
}

/**
 * Makes every data query a named prepared statement: PostgreSQL parses and plans it once per
 * connection instead of on every call. Names are derived from the SQL text. A query containing
 * CUSTOM_PLAN stays unnamed: its best plan depends on a value (a full-text search's words), and
 * a prepared statement's generic plan, chosen after a few runs, would ignore it.
 */
export const CUSTOM_PLAN = '/* custom plan */';
const statementNames = new Map<string, string>();
function preparedStatements(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (text: unknown, values?: unknown, cb?: unknown) => {
    if (typeof text === 'string' && Array.isArray(values) && /^\s*(select|insert|update|delete|with)\b/i.test(text) && !text.includes(CUSTOM_PLAN)) {
      let name = statementNames.get(text);
      if (!name) {
        name = `confab_${statementNames.size}`;
        if (statementNames.size < 5000) statementNames.set(text, name);
        else name = undefined;
      }
      if (name) return query({ name, text, values }, cb);
    }
    return query(text, values, cb);
  };
}

export interface OpenOptions {
  /** PostgreSQL only: the schema to use (created if missing); tests give each server its own. */
  schema?: string;
  /** PostgreSQL only: the most connections this process opens (CONFAB_DATABASE_POOL_SIZE). */
  poolSize?: number;
  /**
   * SQLite only: the write turn of the workers of one `confab serve` (lib/ipc_write_turn.ts); the
   * group commit begins a write transaction only while it holds it. Without it (one process),
   * nothing changes.
   */
  writeTurn?: WriteTurn;
}

/** Whether a database URL names PostgreSQL (anything else is a SQLite file). */
export function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://');
}

export async function openDatabase(url: string, opts: OpenOptions = {}): Promise<Database> {
  let dialect: DialectName;
  if (isPostgresUrl(url)) {
    dialect = 'postgres';
    const pg = await loadPg();
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
      max: opts.poolSize ?? 20,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    pool.on('connect', preparedStatements);
    const kysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    await migrate(kysely, dialect);
    return {
      dialect,
      db: kysely,
      async transaction(fn) {
        const hooks: Array<() => void> = [];
        let result;
        try {
          result = await kysely.transaction().execute((tx) => fn(tx, (h) => hooks.push(h)));
        } catch (e) {
          throw uniqueConflictOf(e) ?? e;
        }
        runHooks(hooks);
        return result;
      },
      close: () => kysely.destroy(),
    };
  }
  dialect = 'sqlite';
  const file = url.replace(/^sqlite:(\/\/)?/, '');
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const open = (role: 'writer' | 'reader') => {
    const raw = new SqliteDatabase(file);
    raw.pragma('journal_mode = WAL');
    // NORMAL: a commit writes the WAL without waiting for the disk; the group commit below makes
    // it durable (fdatasync of the WAL, off the main thread) before anyone hears success, so the
    // event loop serves requests while the disk works. SQLite itself still syncs around checkpoints.
    raw.pragma('synchronous = NORMAL');
    raw.pragma('foreign_keys = ON');
    raw.pragma('busy_timeout = 5000');
    // A statement that writes many rows inside a transaction (a message's flags rows) keeps a
    // statement journal of the pages it changes; past 64 KiB SQLite spills it to a temporary file,
    // a write system call per page on top of the WAL's two. In memory it costs none; the writer's
    // statements are bounded (bulk writes go in chunks), so its size is too.
    if (role === 'writer') raw.pragma('temp_store = MEMORY');
    const database = cachingSqlite(raw, role === 'writer');
    return { kysely: new Kysely<DB>({ dialect: new SqliteDialect({ database }) }), direct: database.direct };
  };
  // Two connections: writes go through one (in transactions, batched), reads through the other.
  // With WAL a reader never waits for the writer, and code that reads while a write transaction
  // is open cannot deadlock on the writer's lock.
  const { kysely: writer, direct: writerDirect } = open('writer');
  await migrate(writer, dialect);
  // From here the writer never waits for the lock inside SQLite: its busy handler sleeps in the
  // main thread, so while another process (a second worker on this file) held the lock this one
  // answered nothing. GroupCommit waits on a timer instead. (Migrations above still wait as before:
  // a start-up is not serving anyone yet.) The reader keeps its timeout; WAL readers rarely wait.
  if (file !== ':memory:') await sql`pragma busy_timeout = 0`.execute(writer);
  let reader = writer;
  // In memory the reader is the writer: its reads wait for the writer's transactions in Kysely's
  // lock, so none goes to it directly (it would read inside another request's transaction).
  if (file !== ':memory:') {
    const opened = open('reader');
    reader = opened.kysely;
    directConnections.set(reader, opened.direct);
  }
  // When busy, checkpoints run in a worker thread, not inside the writer's commits (checkpoints.ts).
  const checkpointer =
    file === ':memory:'
      ? null
      : new Checkpointer(file, async (pages) => {
          await sql`pragma wal_autocheckpoint = ${sql.raw(String(Math.trunc(pages)))}`.execute(writer).catch((err) => console.error('setting wal_autocheckpoint failed:', err));
        });
  const wal = file === ':memory:' ? null : new WalSync(`${file}-wal`);
  const batcher = new GroupCommit(writer, writerDirect, wal, checkpointer, file === ':memory:' ? null : (opts.writeTurn ?? null));
  return {
    dialect,
    db: reader,
    transaction: (fn) => batcher.run(fn),
    async close() {
      await batcher.drain();
      wal?.close();
      await checkpointer?.close();
      if (reader !== writer) await reader.destroy();
      await writer.destroy();
    },
  };
}

/**
 * Runs the after-commit hooks of a committed transaction (events out, caches dropped). The data is
 * stored whatever they do: a hook that throws is logged with what it was, and the others still
 * run; the caller's request succeeds.
 */
export function runHooks(hooks: Array<() => void>): void {
  for (const hook of hooks) {
    try {
      hook();
    } catch (err) {
      console.error(`after-commit hook ${hook.name || '(anonymous)'} failed; the transaction is committed:`, err);
    }
  }
}

export type UserMessageRow = { user_id: number; message_id: number; flags: number };

/**
 * Writes a transaction may hand over to be made just before its commit, all at once. Only for rows
 * nothing in the same transaction reads back: a new message's flags rows. Made in key order over
 * the whole batch, the scattered inserts into user_messages' per-user b-trees touch each page once.
 */
export interface DeferredWrites {
  userMessages(rows: UserMessageRow[]): void;
}

type TxFn<T> = (tx: Transaction<DB>, onCommit: (hook: () => void) => void, deferred?: DeferredWrites) => Promise<T>;

interface Job {
  fn: TxFn<unknown>;
  hooks: Array<() => void>;
  /** Flags rows this job deferred to the end of the batch (dropped if its savepoint rolls back). */
  userMessages: UserMessageRow[];
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  outcome?: { ok: true; value: unknown } | { ok: false; error: unknown };
}

const SAVEPOINT = 'SAVEPOINT confab_job';
const RELEASE = 'RELEASE SAVEPOINT confab_job';
const ROLLBACK_TO = 'ROLLBACK TO SAVEPOINT confab_job';

/**
 * Makes committed WAL frames durable: fdatasync of the WAL file on libuv's thread pool, so the
 * main thread goes on serving while the disk works. Syncs coalesce: a sync asked for while one
 * is running waits for the next, which covers every commit made before it starts. The file stays
 * open: SQLite keeps the same WAL file while any connection (ours) has the database open.
 */
class WalSync {
  private running: Promise<void> | null = null;
  private next: Promise<void> | null = null;
  private fd: number | null = null;

  constructor(private readonly path: string) {}

  /** Resolves once everything committed before this call is on disk. */
  sync(): Promise<void> {
    if (!this.running) {
      this.running = this.fdatasync().finally(() => {
        this.running = null;
      });
      return this.running;
    }
    // The running sync may have started before this commit: the next one covers it.
    const again = () => {
      this.next = null;
      return this.sync();
    };
    return (this.next ??= this.running.then(again, again));
  }

  private fdatasync(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.fd === null) this.fd = openSync(this.path, 'r');
      fdatasync(this.fd, (err) => (err ? reject(err) : resolve()));
    });
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/**
 * SQLite group commit: transactions that arrive while one is committing wait, then run together
 * in the next transaction, each inside its own savepoint (a failing one rolls back alone), and
 * share one durable commit. Every caller still hears back (and its after-commit hooks run) only
 * after its data is on disk. The next batch runs while the previous one's WAL sync is on the
 * disk; batches are answered in commit order.
 */
class GroupCommit {
  private queue: Job[] = [];
  private running: Promise<void> | null = null;
  /** The last committed batch's answers, once its data is durable: the next batch's wait after it. */
  private answered: Promise<void> = Promise.resolve();

  constructor(
    private readonly writer: Kysely<DB>,
    private readonly writerDirect: DirectSqlite,
    private readonly wal: WalSync | null,
    private readonly checkpointer: Checkpointer | null,
    private readonly turn: WriteTurn | null,
  ) {}

  run<T>(fn: TxFn<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn: fn as TxFn<unknown>, hooks: [], userMessages: [], resolve: resolve as (v: unknown) => void, reject });
      // Start on the next turn of the event loop, not now: the statements of a batch never yield
      // to I/O (better-sqlite3 is synchronous), so requests already waiting on sockets must get
      // their turn to join this batch first.
      // With a write turn, its grant (a message from the primary) is that later turn.
      if (!this.running) this.running = (this.turn ? this.turn.acquire() : new Promise<void>((r) => setImmediate(r))).then(() => this.loop());
    });
  }

  async drain(): Promise<void> {
    while (this.running) await this.running;
    await this.answered;
  }

  private async loop(): Promise<void> {
    // With a write turn, the loop starts holding it (run() waited for the grant).
    let holding = this.turn !== null;
    try {
      while (this.queue.length) {
        if (this.turn && !holding) {
          // Transactions that arrive meanwhile join this batch: it grows while the others write.
          await this.turn.acquire();
          holding = true;
        }
        const batch = this.queue.splice(0, this.queue.length);
        const committed = await this.commit(batch);
        // The lock is free again: the next worker's turn, handed on before this batch's events
        // are sent (the grant then travels ahead of them to the primary and on to that worker).
        if (this.turn) {
          this.turn.release();
          holding = false;
        }
        // Events go out at commit, in commit order: the WAL has reached the operating system, so a
        // process crash keeps the batch, and other connections can already read it. The callers
        // hear success only once it is durable (below): waiting for the disk here as well would
        // add the sync (3-8 ms on a cloud disk) to every delivery for nothing another reader
        // could not already see.
        if (committed) this.publish(batch);
        // Durable before anyone hears back; answered in order, after the batches before it.
        const durable = committed && this.wal ? this.wal.sync() : Promise.resolve();
        const previous = this.answered;
        this.answered = Promise.all([previous, durable]).then(
          () => {
            if (committed) this.checkpointer?.committed();
            this.answer(batch);
          },
          (error: unknown) => previous.then(() => this.fail(batch, error)),
        );
      }
    } finally {
      // Released also if something above threw: a turn kept would stop every worker's writes.
      if (holding) this.turn?.release();
      this.running = null;
    }
  }

  /**
   * Runs the batch in one transaction; false when nothing of it was committed. When another
   * process holds the write lock, BEGIN IMMEDIATE fails at once (the writer has no busy timeout)
   * and nothing of the batch has run: the batch waits on a timer, with the event loop free, and
   * tries again, joined by the transactions that arrived meanwhile, for up to LOCK_WAIT_MS as
   * SQLite's busy_timeout waited before; then it fails as it did.
   */
  private async commit(batch: Job[]): Promise<boolean> {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      let began = false;
      try {
        return await this.commitOnce(batch, () => (began = true));
      } catch (error) {
        if (began || !isBusy(error) || Date.now() - started >= LOCK_WAIT_MS) return this.failed(batch, error);
        await lockPause(attempt);
        batch.push(...this.queue.splice(0, this.queue.length));
      }
    }
  }

  /** The batch's jobs all failed with the error (a lone job's own error, or a failed commit). */
  private failed(batch: Job[], error: unknown): false {
    for (const job of batch) {
      if (batch.length === 1 || !job.outcome || job.outcome.ok) job.outcome = { ok: false, error };
    }
    return false;
  }

  /** One attempt; throws when the transaction failed as a whole (began() tells whether it began). */
  private async commitOnce(batch: Job[], began: () => void): Promise<boolean> {
    await this.writer.transaction().execute(async (tx) => {
      began();
      directConnections.set(tx, this.writerDirect);
      try {
        await this.runJobs(tx, batch);
      } finally {
        directConnections.delete(tx);
      }
    });
    return batch.some((job) => job.outcome?.ok);
  }

  /** The batch's jobs, each in its own savepoint when there are several, then their flags rows. */
  private async runJobs(tx: Transaction<DB>, batch: Job[]): Promise<void> {
    for (const job of batch) {
      const deferred: DeferredWrites = { userMessages: (rows) => void job.userMessages.push(...rows) };
      if (batch.length === 1) {
        job.outcome = { ok: true, value: await job.fn(tx, (h) => job.hooks.push(h), deferred) };
        continue;
      }
      this.writerDirect.run(SAVEPOINT, []);
      try {
        job.outcome = { ok: true, value: await job.fn(tx, (h) => job.hooks.push(h), deferred) };
        this.writerDirect.run(RELEASE, []);
      } catch (error) {
        this.writerDirect.run(ROLLBACK_TO, []);
        this.writerDirect.run(RELEASE, []);
        job.outcome = { ok: false, error };
        job.userMessages = [];
      }
    }
    // A failure here fails the whole batch (commit above), as a failed commit would.
    insertSortedUserMessages(this.writerDirect, batch.flatMap((job) => (job.outcome?.ok ? job.userMessages : [])));
  }

  /** The after-commit hooks of the batch's committed jobs (their events), in commit order. */
  private publish(batch: Job[]): void {
    // Isolated: a failing hook neither fails its caller nor keeps the rest of the batch's hooks.
    for (const job of batch) if (job.outcome?.ok) runHooks(job.hooks);
  }

  private answer(batch: Job[]): void {
    for (const job of batch) {
      const outcome = job.outcome!;
      if (outcome.ok) {
        job.resolve(outcome.value);
      } else {
        job.reject(uniqueConflictOf(outcome.error) ?? outcome.error);
      }
    }
  }

  /**
   * The WAL could not be synced: the batch may not survive a power failure, so nobody hears
   * success (its events, sent at commit, stand: a process crash would have kept it).
   */
  private fail(batch: Job[], error: unknown): void {
    console.error('syncing the SQLite WAL failed; the batch is reported as failed:', error);
    for (const job of batch) job.reject(error);
  }
}

/** How long a batch waits for another process's write lock in all: SQLite's busy_timeout before. */
const LOCK_WAIT_MS = 5000;

function isBusy(error: unknown): boolean {
  // SQLITE_BUSY, or an extended code of it (SQLITE_BUSY_RECOVERY while another connection rebuilds the WAL index).
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * The pause before the next try for the write lock: the next turn of the event loop first (another
 * process's transaction is usually a few hundred microseconds), then 1, 2, 4 ms (timers' finest
 * grain is a millisecond), so a long hold costs a few wake-ups a second, not a spinning core.
 */
function lockPause(attempt: number): Promise<void> {
  if (attempt === 0) return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, Math.min(4, 2 ** (attempt - 1))));
}

/** Statement sizes for the sorted flush: few distinct texts, so each is prepared once. */
const FLUSH_CHUNKS = [500, 100, 20, 5, 1];
const valuesSql = new Map<number, string>();
/**
 * A later transaction of the same batch can only have made one of these rows by naming a message
 * id before it was committed (a historical row, from a flag change or a reaction): the recipient's
 * flags then join the ones it set, as if it had run after this message, and the batch does not
 * fail. 256 is FLAG_BITS.historical (store/messages.ts), which a recipient's row does not carry.
 */
const MERGE_EXISTING = ' on conflict ("user_id", "message_id") do update set "flags" = excluded."flags" | ("user_messages"."flags" & ~256)';

function insertSortedUserMessages(writer: DirectSqlite, rows: UserMessageRow[]): void {
  if (rows.length === 0) return;
  rows.sort((a, b) => a.user_id - b.user_id || a.message_id - b.message_id);
  let i = 0;
  for (const size of FLUSH_CHUNKS) {
    let text = valuesSql.get(size);
    if (!text) valuesSql.set(size, (text = `insert into "user_messages" ("user_id", "message_id", "flags") values ${Array(size).fill('(?, ?, ?)').join(', ')}${MERGE_EXISTING}`));
    for (; rows.length - i >= size; i += size) {
      const params: number[] = [];
      for (let j = i; j < i + size; j++) params.push(rows[j]!.user_id, rows[j]!.message_id, rows[j]!.flags);
      writer.run(text, params);
    }
  }
}

/** Drops a PostgreSQL schema made for one test server. */
export async function dropPostgresSchema(url: string, schema: string): Promise<void> {
  const pg = await loadPg();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export { sql };
