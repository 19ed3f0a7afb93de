// The one place that knows how each database reports a unique-index violation. A write that
// races another on a unique name or key (two renames to one channel name, two sign-ups with one
// email) fails in the database, not in an earlier check: Database.transaction turns that failure
// into a UniqueConflict, and the action maps it to the error the sequential case gives.

/** A write hit a unique index: another transaction stored the same name or key first. */
export class UniqueConflict extends Error {
  constructor(
    /** The table, where the driver says (PostgreSQL; SQLite for column indexes). */
    readonly table: string | undefined,
    /** The index's name (PostgreSQL; SQLite for expression indexes), or its columns (SQLite). */
    readonly constraint: string | undefined,
    override readonly cause: unknown,
  ) {
    super(`unique conflict on ${table ?? '?'} (${constraint ?? '?'})`);
    this.name = 'UniqueConflict';
  }
}

/** The driver's error as a UniqueConflict, or undefined if it is something else. */
export function uniqueConflictOf(e: unknown): UniqueConflict | undefined {
  if (e instanceof UniqueConflict) return e;
  const err = e as { code?: unknown; table?: unknown; constraint?: unknown; message?: unknown } | null;
  if (!err || typeof err !== 'object') return undefined;
  // PostgreSQL: SQLSTATE 23505 unique_violation, with the table and index named.
  if (err.code === '23505') return new UniqueConflict(typeof err.table === 'string' ? err.table : undefined, typeof err.constraint === 'string' ? err.constraint : undefined, e);
  // SQLite: "UNIQUE constraint failed: streams.realm_id, streams.name" or "...: index 'name'".
  if (err.code === 'SQLITE_CONSTRAINT_UNIQUE' || err.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    const detail = String(err.message ?? '').replace(/^.*constraint failed:\s*/, '');
    const index = /^index '([^']+)'/.exec(detail)?.[1];
    if (index) return new UniqueConflict(undefined, index, e);
    const table = /^(\w+)\./.exec(detail)?.[1];
    return new UniqueConflict(table, detail.replace(/\b\w+\./g, ''), e);
  }
  return undefined;
}

/**
 * Runs a write and answers a unique conflict with the caller's error (Zulip's message for the
 * sequential case). `which` may pick by table; returning undefined lets the conflict through.
 */
export async function onConflict<T>(work: Promise<T>, which: (c: UniqueConflict) => Error | undefined): Promise<T> {
  try {
    return await work;
  } catch (e) {
    const c = uniqueConflictOf(e);
    const mapped = c && which(c);
    throw mapped ?? e;
  }
}

/**
 * For idempotent writes (add an alert word, set a topic's policy): a write that lost a race runs
 * once more and then sees what the winner stored, as if it had come second.
 */
export async function retryOnConflict<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (!uniqueConflictOf(e)) throw e;
    return write();
  }
}
