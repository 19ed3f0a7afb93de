// The worker thread that checkpoints SQLite's WAL into the database file (store/checkpoints.ts
// starts it): copying pages and syncing the file take milliseconds of disk time that would
// otherwise stall the main thread inside a commit. One worker serves every database the process
// has open, with its own connection to each.
import { parentPort } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';

export type CheckpointRequest = { op: 'checkpoint'; file: string; id: number } | { op: 'forget'; file: string; id: number };
export type CheckpointReply = { id: number; ok: true; walFrames: number; checkpointed: number } | { id: number; ok: false; error: string };

const connections = new Map<string, SqliteDatabase.Database>();

function connection(file: string): SqliteDatabase.Database {
  let db = connections.get(file);
  if (!db) {
    db = new SqliteDatabase(file);
    db.pragma('busy_timeout = 5000');
    // The WAL is synced before pages are copied, and the database file after.
    db.pragma('synchronous = NORMAL');
    db.pragma('wal_autocheckpoint = 0');
    connections.set(file, db);
  }
  return db;
}

parentPort!.on('message', (req: CheckpointRequest) => {
  let reply: CheckpointReply;
  try {
    if (req.op === 'forget') {
      connections.get(req.file)?.close();
      connections.delete(req.file);
      reply = { id: req.id, ok: true, walFrames: 0, checkpointed: 0 };
    } else {
      // PASSIVE: copies what no reader still needs, never waits for the writer or readers.
      const [row] = connection(req.file).pragma('wal_checkpoint(PASSIVE)') as Array<{ busy: number; log: number; checkpointed: number }>;
      reply = { id: req.id, ok: true, walFrames: row?.log ?? 0, checkpointed: row?.checkpointed ?? 0 };
    }
  } catch (err) {
    reply = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort!.postMessage(reply);
});
