// A schema-driven fuzzer (npm run fuzz): requests generated from Zulip's OpenAPI description, for
// every operation, with valid parameters (the description's examples, path ids of real objects)
// and mutated ones (wrong types, overlong and odd strings, huge and negative numbers, broken JSON,
// missing and unknown parameters), as every role and with bad or no credentials. Fixed seeds and a
// bounded count make a run repeatable. It fails on any 5xx, any answer that shows a stack trace,
// and any request that hangs.
//
//   node dist/scripts/fuzz.js [--spec PATH] [--seeds 1,2,3] [--count N]
//
// The database is SQLite unless CONFAB_TEST_DATABASE_URL names a PostgreSQL one (as for the tests).
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, startTestServer, type TestServer } from '../test/helpers.js';

type Json = any;

const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;
/** A request slower than this is a hang. */
const TIMEOUT_MS = 15_000;
const CONCURRENCY = 4;

/** Operations that would take the fuzzer's own credentials away for the rest of the run. */
const SKIPPED = new Set(['delete /users/me']);

interface Param {
  name: string;
  in: 'path' | 'query' | 'body';
  json: boolean;
  required: boolean;
  schema: Json;
  example: unknown;
}

interface Operation {
  method: string;
  path: string;
  params: Param[];
}

/** mulberry32: a small seeded generator, so a seed always makes the same requests. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function loadOperations(specPath: string): Operation[] {
  const spec = JSON.parse(readFileSync(specPath, 'utf8'));
  const deref = (x: Json): Json => {
    let v = x;
    for (let i = 0; v && typeof v === 'object' && typeof v.$ref === 'string' && i < 10; i++) {
      v = v.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o: Json, k: string) => o?.[k], spec);
    }
    return v;
  };
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries<Json>(spec.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op || SKIPPED.has(`${method} ${path}`)) continue;
      const params: Param[] = [];
      for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
        const p = deref(raw);
        if (!p || (p.in !== 'path' && p.in !== 'query')) continue;
        const jsonContent = p.content?.['application/json'];
        const schema = deref(jsonContent?.schema ?? p.schema ?? {});
        params.push({ name: p.name, in: p.in, json: !!jsonContent || schema.type === 'array' || schema.type === 'object', required: !!p.required, schema, example: p.example ?? jsonContent?.example ?? schema.example });
      }
      const form = op.requestBody?.content?.['application/x-www-form-urlencoded'] ?? op.requestBody?.content?.['multipart/form-data'];
      const bodySchema = deref(form?.schema ?? {});
      const required = new Set<string>(bodySchema.required ?? []);
      for (const [name, rawSchema] of Object.entries<Json>(bodySchema.properties ?? {})) {
        const schema = deref(rawSchema);
        const json = form?.encoding?.[name]?.contentType === 'application/json' || schema.type === 'array' || schema.type === 'object';
        params.push({ name, in: 'body', json, required: required.has(name), schema, example: schema.example ?? rawSchema.example });
      }
      ops.push({ method: method.toUpperCase(), path, params });
    }
  }
  return ops;
}

/** Ids of real objects for path parameters, made before the run. */
type Fixture = Record<string, string>;

async function makeFixture(t: TestServer, clients: Record<string, Client>): Promise<Fixture> {
  const owner = t.owner;
  const must = async (p: Promise<{ status: number; body: any }>, what: string) => {
    const r = await p;
    if (r.status !== 200) throw new Error(`fixture ${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  await must(owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'fuzz' }, { name: 'fuzz two' }], principals: Object.values(clients).map((c) => c.userId) }), 'channels');
  const streamId = (await must(owner.get('/get_stream_id', { stream: 'fuzz' }), 'stream id')).stream_id;
  const msg = await must(owner.post('/messages', { type: 'stream', to: 'fuzz', topic: 'fuzzing', content: 'hello **fuzz**' }), 'message');
  await must(owner.post('/messages', { type: 'direct', to: [clients.member!.userId], content: 'direct' }), 'dm');
  const sacrificial = await t.createUser({ name: 'Sacrificial Lamb' });
  const group = await must(owner.post('/user_groups/create', { name: 'fuzz group', description: 'd', members: [owner.userId] }), 'group');
  const folder = await must(owner.post('/channel_folders/create', { name: 'fuzz folder', description: '' }), 'folder');
  const linkifier = await must(owner.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://example.com/{id}' }), 'linkifier');
  const playground = await must(owner.post('/realm/playgrounds', { name: 'Fuzz', pygments_language: 'python', url_template: 'https://example.com/?q={code}' }), 'playground');
  const scheduled = await must(owner.post('/scheduled_messages', { type: 'stream', to: streamId, topic: 'later', content: 'later', scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86400 }), 'scheduled');
  const drafts = await must(owner.post('/drafts', { drafts: [{ type: 'stream', to: [streamId], topic: 'd', content: 'draft', timestamp: 1 }] }), 'draft');
  const snippet = await must(owner.post('/saved_snippets', { title: 'Fuzz', content: 'snippet' }), 'snippet');
  const bot = await must(owner.post('/bots', { full_name: 'Fuzz Bot', short_name: 'fuzzbot', bot_type: 1 }), 'bot');
  const invite = await owner.post('/invites', { invitee_emails: 'invited@example.com', stream_ids: [streamId], invite_expires_in_minutes: 60 });
  const invites = await owner.get('/invites');
  const field = await must(owner.post('/realm/profile_fields', { name: 'Fuzz field', field_type: 1, hint: '' }), 'profile field');
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f2b4f90000000049454e44ae426082', 'hex');
  await owner.upload('/realm/emoji/fuzz_emoji', [{ name: 'e.png', type: 'image/png', data: png }]);
  const upload = await must(owner.upload('/user_uploads', [{ name: 'fuzz.txt', type: 'text/plain', data: 'fuzz' }]), 'upload');
  const attachments = await must(owner.get('/attachments'), 'attachments');
  const reminder = await owner.post('/reminders', { message_id: msg.id, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 86400 });
  await owner.post('/navigation_views', { fragment: 'narrow/channel/1-fuzz', is_pinned: true, name: 'Fuzz view' });
  const [realmIdStr, ...rest] = String(upload.url).replace(/^\/user_uploads\//, '').split('/');
  void invite;
  return {
    stream_id: String(streamId),
    message_id: String(msg.id),
    user_id: String(sacrificial.userId),
    user_id_or_email: sacrificial.email,
    muted_user_id: String(clients.member!.userId),
    email: sacrificial.email,
    user_group_id: String(group.group_id),
    channel_folder_id: String(folder.channel_folder_id),
    filter_id: String(linkifier.id),
    playground_id: String(playground.id),
    scheduled_message_id: String(scheduled.scheduled_message_id),
    draft_id: String(drafts.ids?.[0] ?? 1),
    saved_snippet_id: String(snippet.saved_snippet_id),
    bot_id: String(bot.user_id),
    invite_id: String(invites.body.invites?.[0]?.id ?? 1),
    attachment_id: String(attachments.attachments?.[0]?.id ?? 1),
    reminder_id: String(reminder.body.reminder_id ?? 1),
    emoji_name: 'fuzz_emoji',
    fragment: 'narrow/channel/1-fuzz',
    realm_id_str: realmIdStr ?? '1',
    filename: rest.join('/') || 'x.txt',
  };
}

/**
 * Incompressible text of n characters: a repeated letter would compress to nothing in the
 * database and slip under a size limit that real text hits (PostgreSQL compresses index entries).
 */
function noise(r: () => number, n: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'): string {
  const chars = [...alphabet];
  let out = '';
  for (let i = 0; i < n; i++) out += chars[Math.floor(r() * chars.length)];
  return out;
}
const EMOJI = '😀😎🚀🌍🎉🔥💡🧪📦🐛';
/** Values that are wrong for almost any parameter. */
const MUTATIONS: Array<(r: () => number) => string> = [
  () => '',
  () => ' ',
  () => '-1',
  () => '0',
  () => '9223372036854775808',
  () => '1e309',
  () => 'NaN',
  () => 'null',
  () => 'true',
  () => '[]',
  () => '{}',
  () => '[1, "a", null, {}]',
  () => '{"a": {"b": [1, 2, {"c": null}]}}',
  () => '"a string"',
  () => '{',
  () => '[' .repeat(2000),
  () => '\u202e\u0301\ud83d\ude00 \u00e9',
  () => '\ud800',
  (r) => noise(r, 3000, EMOJI),
  () => '%00%2e%2e/%2f',
  () => '<script>alert(1)</script>',
  () => "'; DROP TABLE users; --",
  (r) => noise(r, 10_001),
  (r) => (r() < 0.15 ? noise(r, 300_000) : noise(r, 2_000)),
  (r) => JSON.stringify(Array.from({ length: 1 + Math.floor(r() * 2000) }, (_, i) => i)),
  (r) => String(Math.floor(r() * 2 ** 31)),
  () => '[{"operator": "channel", "operand": 99999999}, {"operator": "search", "operand": "a OR b"}]',
  () => '[["stream", "fuzz"], ["is", "nonsense"], ["has", 5]]',
];

/** Values aimed at a parameter's own type: where a wrong bound or a missing check shows. */
function typedMutation(p: Param, r: () => number): string {
  const type = p.schema?.type;
  const pick = <T>(list: T[]) => list[Math.floor(r() * list.length)]!;
  if (p.json || type === 'array' || type === 'object') return pick(['{', '[' .repeat(5000), JSON.stringify([noise(r, 20_000)]), JSON.stringify({ a: noise(r, 20_000) }), JSON.stringify(Array.from({ length: 5000 }, (_, i) => i)), '"text"', '7']);
  if (type === 'integer' || type === 'number') return pick(['9223372036854775808', '-9223372036854775809', '-1', '1.5', 'abc', '']);
  if (type === 'boolean') return pick(['maybe', '1', '']);
  const roll = r();
  if (roll < 0.3) return noise(r, 10_001);
  if (roll < 0.5) return noise(r, 2_000, EMOJI);
  if (roll < 0.6) return noise(r, 300_000);
  if (roll < 0.7) return noise(r, 1_001);
  return pick([' '.repeat(3), '\u0000', '\ud800', noise(r, 101), noise(r, 61)]);
}

const PATH_MUTATIONS = ['abc', '-1', '0', '99999999999999999999', '1.5', '%F0%9F%98%80', '%2e%2e', 'x'.repeat(1500), '%00', ' 1'];

function exampleValue(p: Param, fixture: Fixture, r: () => number): string | undefined {
  if (p.in === 'path' && fixture[p.name] !== undefined) return fixture[p.name];
  let v = p.example;
  if (v === undefined) {
    const s = p.schema ?? {};
    if (s.default !== undefined) v = s.default;
    else if (Array.isArray(s.enum) && s.enum.length) v = s.enum[Math.floor(r() * s.enum.length)];
    else if (s.type === 'integer') v = 1;
    else if (s.type === 'boolean') v = r() < 0.5;
    else if (s.type === 'array') v = [];
    else if (s.type === 'object') v = {};
    else if (!p.required) return undefined;
    else v = 'fuzz';
  }
  if (typeof v === 'string' && !p.json) return v;
  return JSON.stringify(v);
}

interface Request {
  op: Operation;
  role: string;
  path: string;
  query: URLSearchParams;
  body?: URLSearchParams;
  mutated: string;
  /** The parameter given an overlong string, if any (reported when accepted). */
  long?: string;
}

function makeRequest(op: Operation, fixture: Fixture, roles: string[], r: () => number, mutate: boolean, target?: Param): Request {
  const values = new Map<Param, string | undefined>();
  for (const p of op.params) values.set(p, exampleValue(p, fixture, r));
  let mutated = 'none';
  let long: string | undefined;
  if (target) {
    values.set(target, target.in === 'path' ? PATH_MUTATIONS[Math.floor(r() * PATH_MUTATIONS.length)] : typedMutation(target, r));
    mutated = `${target.name}=${JSON.stringify(values.get(target))?.slice(0, 60)}`;
    const v = values.get(target);
    if (v && v.length > 1000 && target.schema?.type === 'string') long = `${op.method} ${op.path} ${target.name}`;
  } else if (mutate && op.params.length && r() < 0.9) {
    const p = op.params[Math.floor(r() * op.params.length)]!;
    const roll = r();
    if (p.in === 'path') {
      values.set(p, PATH_MUTATIONS[Math.floor(r() * PATH_MUTATIONS.length)]);
    } else if (roll < 0.1 && p.required) {
      values.set(p, undefined);
    } else {
      values.set(p, MUTATIONS[Math.floor(r() * MUTATIONS.length)]!(r));
    }
    mutated = `${p.name}=${JSON.stringify(values.get(p))?.slice(0, 60)}`;
  } else if (mutate) {
    mutated = 'unknown parameter';
  }
  let path = op.path;
  const query = new URLSearchParams();
  const body = new URLSearchParams();
  for (const [p, v] of values) {
    if (p.in === 'path') path = path.replace(`{${p.name}}`, v === undefined ? '' : /%[0-9A-F]{2}/i.test(v) ? v : encodeURIComponent(v));
    else if (v === undefined) continue;
    else if (p.in === 'query' || op.method === 'GET') query.append(p.name, v);
    else body.append(p.name, v);
  }
  if (mutated === 'unknown parameter') (op.method === 'GET' ? query : body).append('fuzz_unknown', '1');
  if (op.path === '/events' && op.method === 'GET') query.set('dont_block', 'true');
  const role = roles[Math.floor(r() * roles.length)]!;
  return { op, role, path, query, body: op.method === 'GET' ? undefined : body, mutated, long };
}

interface Failure {
  what: string;
  request: string;
  status: number | string;
  body: string;
}

const STACK = /\n\s+at [^\n]+:\d+:\d+|node_modules\/|\/src\/[\w/]+\.(js|ts)/;

async function send(baseUrl: string, req: Request, clients: Record<string, Client>): Promise<{ status: number; text: string } | { error: string }> {
  const headers: Record<string, string> = { 'User-Agent': 'ConfabFuzz/1.0' };
  if (req.role === 'bad key') headers.Authorization = 'Basic ' + Buffer.from(`${clients.member!.email}:not-the-key`).toString('base64');
  else if (req.role !== 'anonymous') headers.Authorization = clients[req.role]!.authHeader;
  const qs = req.query.toString();
  const url = `${baseUrl}/api/v1${req.path}${qs ? `?${qs}` : ''}`;
  if (req.body) headers['Content-Type'] = 'application/x-www-form-urlencoded';
  try {
    const res = await fetch(url, { method: req.op.method, headers, body: req.body?.toString(), signal: AbortSignal.timeout(TIMEOUT_MS) });
    return { status: res.status, text: await res.text() };
  } catch (e) {
    return { error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

async function main(argv: string[]): Promise<number> {
  const arg = (name: string) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const shared = process.env.CONFAB_SHARED_DIR || join(root, '..', 'shared');
  const specPath = arg('spec') ?? join(shared, 'reference', 'zulip-openapi.json');
  const seeds = (arg('seeds') ?? '1,2,3').split(',').map(Number);
  const perSeed = Number(arg('count') ?? 1000);
  const ops = loadOperations(specPath);

  // Internal errors the server logs (a 500's cause) are failures too, even if the answer hid them.
  const logged: string[] = [];
  const originalError = console.error;
  console.error = (...args: unknown[]) => {
    const line = args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : String(a))).join(' ');
    if (/internal error|unmapped unique conflict/.test(line)) logged.push(line);
  };

  // Keeps the process alive while requests are out: a request the server never answers (a promise
  // that never settles) holds no handle of its own, and Node would exit silently instead of
  // letting the timeout report the hang.
  const alive = setInterval(() => undefined, 1000);
  const t = await startTestServer({ heartbeatSeconds: 1 });
  const failures: Failure[] = [];
  let sent = 0;
  const started = Date.now();
  const statuses = new Map<number, number>();
  /** String parameters that took more than 1,000 characters (information: bounded only by the default). */
  const acceptedLong = new Set<string>();
  try {
    const clients: Record<string, Client> = { owner: t.owner };
    for (const role of ['administrator', 'moderator', 'member', 'guest'] as const) clients[role] = await t.createUser({ role, name: `Fuzz ${role}` });
    const fixture = await makeFixture(t, clients);
    const bot = await t.owner.get(`/bots`);
    void bot;
    const roles = [...Object.keys(clients), 'bad key', 'anonymous'];

    for (const seed of seeds) {
      const r = rng(seed);
      // Every operation once with valid parameters, then mutated requests up to the count.
      const requests: Request[] = ops.map((op) => makeRequest(op, fixture, roles, r, false));
      // Then every parameter of every operation once with a value aimed at its type, as a user
      // who may call it (the owner), so a missing bound cannot hide behind a permission check.
      for (const op of ops) for (const p of op.params) requests.push({ ...makeRequest(op, fixture, roles, r, true, p), role: 'owner' });
      while (requests.length < perSeed) requests.push(makeRequest(ops[Math.floor(r() * ops.length)]!, fixture, roles, r, true));
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const req = requests[next++]!;
          if (process.env.CONFAB_FUZZ_TRACE) (process as unknown as { _rawDebug(s: string): void })._rawDebug(`> ${req.op.method} ${req.path.slice(0, 100)} ${req.role} ${req.mutated.slice(0, 80)}`);
          const res = await send(t.url, req, clients);
          sent++;
          const describe = `${req.op.method} ${req.path.slice(0, 120)} as ${req.role}, mutated ${req.mutated} (seed ${seed})`;
          if ('error' in res) {
            failures.push({ what: /Timeout|abort/i.test(res.error) ? 'hang' : 'no answer', request: describe, status: res.error, body: '' });
            continue;
          }
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          if (res.status === 200 && req.long) acceptedLong.add(req.long);
          if (res.status >= 500) failures.push({ what: '5xx', request: describe, status: res.status, body: res.text.slice(0, 300) });
          else if (STACK.test(res.text)) failures.push({ what: 'stack trace', request: describe, status: res.status, body: res.text.slice(0, 300) });
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    }
  } finally {
    console.error = originalError;
    // A server that cannot shut down after the run (a transaction or hook that never settles) is a
    // hang too.
    const closed = await Promise.race([t.close().then(() => true), new Promise<false>((r) => setTimeout(() => r(false), TIMEOUT_MS))]);
    if (!closed) failures.push({ what: 'hang', request: 'closing the server after the run', status: 'no close', body: '' });
    clearInterval(alive);
  }
  const db = process.env.CONFAB_TEST_DATABASE_URL ? 'PostgreSQL' : 'SQLite';
  const fives = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  console.log(`fuzz on ${db}: ${sent} requests over ${ops.length} operations, seeds ${seeds.join(',')}, ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${[...statuses].sort((a, b) => a[0] - b[0]).map(([s, c]) => `${s}:${c}`).join(' ')}; 5xx: ${fives}`);
  if (argv.includes('--verbose')) for (const l of [...acceptedLong].sort()) console.log(`accepted >1000 characters: ${l}`);
  for (const f of failures.slice(0, 40)) console.log(`FAIL ${f.what}: ${f.request} -> ${f.status} ${f.body}`);
  for (const l of logged.slice(0, 10)) console.log(`LOGGED ${l.slice(0, 1500)}`);
  if (failures.length > 40) console.log(`... and ${failures.length - 40} more failures`);
  return failures.length || logged.length ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(2);
  },
);
