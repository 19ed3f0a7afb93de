// The machine's storage floor: raw better-sqlite3 inserts of the rows one channel message costs
// (the message plus one user_messages row per subscriber), WAL with synchronous=FULL like Confab.
import SqliteDatabase from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function sqliteFloor(subscribers: number, messages: number, perCommit: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'confab-floor-'));
  const db = new SqliteDatabase(join(dir, 'floor.db'));
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
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
    const started = process.hrtime.bigint();
    for (let done = 0; done < messages; done += perCommit) batch(Math.min(perCommit, messages - done));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    return messages / seconds;
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
