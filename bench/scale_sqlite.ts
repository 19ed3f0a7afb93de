// The growth figures' SQLite side: a fresh database file in a temporary directory per size, the
// bulk rows through raw better-sqlite3 batches, and the floors from floor_sqlite.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { nowSeconds } from '../src/services.js';
import { sqliteFloor, sqliteTopicQueryFloor } from './floor_sqlite.js';
import type { BulkRows, ScaleBackend } from './scale.js';

const fileOf = (url: string) => url.slice('sqlite:'.length);

export function sqliteBackend(): ScaleBackend {
  const dirs = new Set<string>();
  return {
    name: 'SQLite',
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'confab-scale-'));
      dirs.add(dir);
      return `sqlite:${join(dir, 'scale.db')}`;
    },
    async bulkSeed(url: string, rows: BulkRows) {
      const raw = new SqliteDatabase(fileOf(url));
      try {
        raw.pragma('journal_mode = WAL');
        raw.pragma('synchronous = OFF');
        const insertSub = raw.prepare(
          `INSERT INTO subscriptions (realm_id, user_id, stream_id, active, color, is_muted, pin_to_top) VALUES (?, ?, ?, 1, '#76ce90', 0, 0)`,
        );
        raw.transaction(() => {
          for (let i = 0; i < rows.subUsers.length; i++) insertSub.run(rows.realmId, rows.subUsers[i], rows.subStreams[i]);
        })();
        // The history in big batches (the fts trigger still runs, as it would for real sends).
        const insertMessage = raw.prepare(
          `INSERT INTO messages (realm_id, sender_id, recipient_type, recipient_id, stream_id, dm_group_id, topic, content, rendered_content, date_sent, sending_client)
           VALUES (?, ?, 'stream', ?, ?, NULL, ?, ?, ?, ?, 'bench')`,
        );
        const insertRow = raw.prepare('INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, 1)');
        const now = nowSeconds();
        const batch = raw.transaction((start: number, n: number) => {
          for (let i = start; i < start + n; i++) {
            const id = insertMessage.run(rows.realmId, rows.senderId, rows.historyRecipientId, rows.historyChannelId, `topic ${i % rows.topics}`, `history message ${i}`, `<p>history message ${i}</p>`, now).lastInsertRowid;
            for (const reader of rows.readers) insertRow.run(reader, id);
          }
        });
        for (let start = 0; start < rows.messages; start += 20_000) batch(start, Math.min(20_000, rows.messages - start));
        raw.pragma('wal_checkpoint(TRUNCATE)');
      } finally {
        raw.close();
      }
    },
    async topicFloor(url, _realmId, userId, streamId, topics, runs) {
      return sqliteTopicQueryFloor(fileOf(url), userId, streamId, topics, runs);
    },
    async sendFloor(_url, subscribers, runs) {
      return 1000 / sqliteFloor(subscribers, runs, 1);
    },
    async drop(url) {
      const dir = join(fileOf(url), '..');
      rmSync(dir, { recursive: true, force: true });
      dirs.delete(dir);
    },
    async dropAll() {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      dirs.clear();
    },
  };
}
