// The growth figures' PostgreSQL side: a scratch database per size (confab_scale_<pid>_<size>,
// dropped after it, even on error), the bulk rows as one set-based statement per table, and the
// floors as the same queries through a bare `pg` client.
import pg from 'pg';
import type { BulkRows, ScaleBackend } from './scale.js';

/** The topic narrow exactly as GET /messages sends it to PostgreSQL (taken from the server's log). */
const TOPIC_QUERY = `select "messages".*, coalesce(um.flags, 257) as "viewer_flags" from "messages"
  left join "user_messages" as "um" on "um"."message_id" = "messages"."id" and "um"."user_id" = $1
  where "messages"."realm_id" = $2 and messages.stream_id = $3 and (messages.recipient_type = 'stream' and lower(messages.topic) = lower($4))
  and "messages"."id" < 1000000000000000 order by "messages"."id" desc limit 50`;

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** `adminUrl`: any database on the server; the scratch databases are made beside it. */
export function postgresBackend(adminUrl: string): ScaleBackend {
  const made = new Set<string>();
  const urlOf = (name: string) => {
    const u = new URL(adminUrl);
    u.pathname = `/${name}`;
    return u.toString();
  };
  const nameOf = (url: string) => new URL(url).pathname.slice(1);
  const dropNamed = async (name: string) => {
    // FORCE: a server or client left connected by an error must not keep the database alive.
    await withClient(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    made.delete(name);
  };
  return {
    name: 'PostgreSQL',
    async create(size) {
      const name = `confab_scale_${process.pid}_${size}`;
      if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`);
      await withClient(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
      made.add(name);
      return urlOf(name);
    },
    async bulkSeed(url: string, rows: BulkRows) {
      await withClient(url, async (c) => {
        // Seeding only: a crash loses nothing that matters, so commits need not wait for the disk.
        await c.query('SET synchronous_commit = off');
        await c.query(
          `INSERT INTO subscriptions (realm_id, user_id, stream_id, active, color, is_muted, pin_to_top)
           SELECT $1, u, s, true, '#76ce90', false, false FROM unnest($2::bigint[], $3::bigint[]) AS t(u, s)`,
          [rows.realmId, rows.subUsers, rows.subStreams],
        );
        // A bulk load's usual order: the foreign keys and secondary indexes of the two big tables
        // (as the migrations made them, read back from the catalog) are dropped, the rows inserted,
        // then the indexes built and the foreign keys checked again in one pass each: several times
        // faster than row by row (the GIN search index and the per-row key checks most of all).
        const foreignKeys = (
          await c.query(
            `SELECT conrelid::regclass::text AS tbl, conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
             WHERE contype = 'f' AND conrelid IN ('messages'::regclass, 'user_messages'::regclass)`,
          )
        ).rows as Array<{ tbl: string; conname: string; def: string }>;
        const indexes = (
          await c.query(
            `SELECT i.indexname, i.indexdef FROM pg_indexes i
             WHERE i.schemaname = current_schema() AND i.tablename IN ('messages', 'user_messages')
               AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`,
          )
        ).rows as Array<{ indexname: string; indexdef: string }>;
        for (const k of foreignKeys) await c.query(`ALTER TABLE ${k.tbl} DROP CONSTRAINT ${k.conname}`);
        for (const i of indexes) await c.query(`DROP INDEX ${i.indexname}`);
        // In g order, so message ids grow with g as they would for messages sent one by one.
        await c.query(
          `INSERT INTO messages (realm_id, sender_id, recipient_type, recipient_id, stream_id, topic, content, rendered_content, date_sent, sending_client)
           SELECT $1, $2, 'stream', $3, $4, 'topic ' || (g % $5), 'history message ' || g, '<p>history message ' || g || '</p>', $6, 'bench'
           FROM generate_series(0, $7::int - 1) AS g ORDER BY g`,
          [rows.realmId, rows.senderId, rows.historyRecipientId, rows.historyChannelId, rows.topics, Math.floor(Date.now() / 1000), rows.messages],
        );
        await c.query(
          `INSERT INTO user_messages (user_id, message_id, flags)
           SELECT r, m.id, 1 FROM messages m CROSS JOIN unnest($1::bigint[]) AS r WHERE m.stream_id = $2 ORDER BY r, m.id`,
          [rows.readers, rows.historyChannelId],
        );
        await c.query(`SET maintenance_work_mem = '256MB'`);
        for (const i of indexes) await c.query(i.indexdef);
        for (const k of foreignKeys) await c.query(`ALTER TABLE ${k.tbl} ADD CONSTRAINT ${k.conname} ${k.def}`);
        // The server's first queries must see statistics of the seeded tables, as a live database's would.
        await c.query('ANALYZE');
      });
    },
    async topicFloor(url, realmId, userId, streamId, topics, runs) {
      return withClient(url, async (c) => {
        const out: number[] = [];
        for (let i = 0; i < runs; i++) {
          const t0 = performance.now();
          // Named, so it is parsed and planned once, as the server's prepared statements are.
          await c.query({ name: 'topic_floor', text: TOPIC_QUERY, values: [userId, realmId, streamId, `topic ${i % topics}`] });
          out.push(performance.now() - t0);
        }
        return out.sort((a, b) => a - b);
      });
    },
    async sendFloor(url, subscribers, runs) {
      return withClient(url, async (c) => {
        // The rows one channel message costs, in tables with only their keys (like floor_sqlite.ts),
        // each message committed on its own and durably (synchronous_commit on, the default).
        await c.query(`CREATE TABLE floor_messages (id bigserial PRIMARY KEY, realm_id bigint, sender_id bigint, recipient_id bigint,
          stream_id bigint, topic text, content text, rendered_content text, date_sent bigint)`);
        await c.query('CREATE TABLE floor_user_messages (user_id bigint, message_id bigint, flags int, PRIMARY KEY (user_id, message_id))');
        try {
          const t0 = performance.now();
          for (let i = 0; i < runs; i++) {
            await c.query('BEGIN');
            const id = (
              await c.query({
                name: 'floor_message',
                text: `INSERT INTO floor_messages (realm_id, sender_id, recipient_id, stream_id, topic, content, rendered_content, date_sent)
                       VALUES (1, 1, 1, 1, 'topic', 'hello world', '<p>hello world</p>', $1) RETURNING id`,
                values: [Date.now()],
              })
            ).rows[0].id;
            await c.query({ name: 'floor_rows', text: 'INSERT INTO floor_user_messages SELECT u, $1, 0 FROM generate_series(1, $2::int) AS u', values: [id, subscribers] });
            await c.query('COMMIT');
          }
          return (performance.now() - t0) / runs;
        } finally {
          await c.query('DROP TABLE floor_messages, floor_user_messages');
        }
      });
    },
    async explain(url, realmId, userId, streamId) {
      await withClient(url, async (c) => {
        const plan = await c.query(`EXPLAIN (ANALYZE, BUFFERS) ${TOPIC_QUERY}`, [userId, realmId, streamId, 'topic 7']);
        process.stdout.write(`EXPLAIN of the topic narrow (${nameOf(url)}):\n${plan.rows.map((r) => `  ${r['QUERY PLAN']}`).join('\n')}\n`);
        // The server's own slow statements, with their plans, go to PostgreSQL's log.
        const name = nameOf(url);
        await c.query(`ALTER DATABASE ${name} SET session_preload_libraries = 'auto_explain'`);
        await c.query(`ALTER DATABASE ${name} SET auto_explain.log_min_duration = '20ms'`);
        await c.query(`ALTER DATABASE ${name} SET auto_explain.log_analyze = on`);
        await c.query(`ALTER DATABASE ${name} SET auto_explain.log_buffers = on`);
        const log = (await c.query('SELECT pg_current_logfile() AS f')).rows[0].f ?? '(logging collector off: see the server log)';
        process.stdout.write(`server statements over 20 ms are logged with their plans (auto_explain) in ${log}\n`);
      });
    },
    drop: (url) => dropNamed(nameOf(url)),
    async dropAll() {
      for (const name of [...made]) await dropNamed(name);
    },
  };
}
