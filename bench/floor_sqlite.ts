// The machine's storage floor: raw better-sqlite3 inserts of the rows one channel message costs
// (the message plus one user_messages row per subscriber), made durable the way Confab makes them:
// WAL with synchronous=NORMAL, then an fdatasync of the WAL after each commit (store/db.ts does
// that off the main thread, once per group of commits).
import SqliteDatabase from 'better-sqlite3';
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function sqliteFloor(subscribers: number, messages: number, perCommit: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'confab-floor-'));
  const file = join(dir, 'floor.db');
  const db = new SqliteDatabase(file);
  let wal: number | undefined;
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, realm_id INTEGER, sender_id INTEGER, recipient_id INTEGER,
      stream_id INTEGER, topic TEXT, content TEXT, rendered_content TEXT, date_sent INTEGER);
      CREATE TABLE user_messages (user_id INTEGER, message_id INTEGER, flags INTEGER, PRIMARY KEY (user_id, message_id));`);
    const insertMessage = db.prepare(
      'INSERT INTO messages (realm_id, sender_id, recipient_id, stream_id, topic, content, rendered_content, date_sent) VALUES (1, 1, 1, 1, ?, ?, ?, ?)',
    );
    const insertRow = db.prepare('INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, 0)');
    const batch = db.transaction((n: number) => {
      for (let i = 0; i < n; i++) {
        const id = Number(insertMessage.run('topic', 'hello world', '<p>hello world</p>', Date.now()).lastInsertRowid);
        for (let u = 1; u <= subscribers; u++) insertRow.run(u, id);
      }
    });
    // The CREATE TABLEs above went to the WAL, so the file exists; it stays while the connection is open.
    wal = openSync(`${file}-wal`, 'r');
    const started = process.hrtime.bigint();
    for (let done = 0; done < messages; done += perCommit) {
      batch(Math.min(perCommit, messages - done));
      fdatasyncSync(wal);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return messages / seconds;
  } finally {
    if (wal !== undefined) closeSync(wal);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The floor for a topic-narrow fetch: the same query shape GET /messages runs, straight through
 * better-sqlite3 on the benchmark's own database file. Returns sorted timings in milliseconds.
 */
export function sqliteTopicQueryFloor(file: string, userId: number, streamId: number, topics: number, runs: number): number[] {
  const db = new SqliteDatabase(file, { readonly: true });
  try {
    const stmt = db.prepare(
      `SELECT m.*, coalesce(um.flags, 257) AS flags FROM messages m
       LEFT JOIN user_messages um ON um.message_id = m.id AND um.user_id = ?
       WHERE m.stream_id = ? AND lower(m.topic) = lower(?) AND m.id < ? ORDER BY m.id DESC LIMIT 50`,
    );
    const out: number[] = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      stmt.all(userId, streamId, `topic ${i % topics}`, 1e15);
      out.push(performance.now() - t0);
    }
    return out.sort((a, b) => a - b);
  } finally {
    db.close();
  }
}
