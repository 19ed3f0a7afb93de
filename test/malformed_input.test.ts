// No input gets a 500: every route is fed malformed parameters of many shapes, and every answer
// must be a success or Zulip's error envelope with a 4xx status.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { rawRequest, startTestServer, type Client, type TestServer } from './helpers.js';

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer();
  member = await t.createUser();
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [t.owner.userId, member.userId] });
});
after(async () => {
  await t.close();
});

const ROUTES: Array<[string, string, string[]]> = [
  ['GET', '/users/me', []],
  ['GET', '/users', ['client_gravatar', 'user_ids', 'include_custom_profile_fields']],
  ['GET', '/users/{id}', ['client_gravatar']],
  ['POST', '/users', ['email', 'password', 'full_name']],
  ['PATCH', '/users/{id}', ['full_name', 'role', 'profile_data']],
  ['POST', '/bots', ['full_name', 'short_name', 'bot_type']],
  ['GET', '/user_groups', ['include_deactivated_groups']],
  ['PATCH', '/realm', ['name', 'description', 'topics_policy', 'waiting_period_threshold', 'can_mention_many_users_group', 'message_content_edit_limit_seconds']],
  ['GET', '/streams', ['include_public', 'include_all']],
  ['GET', '/streams/{id}', []],
  ['GET', '/get_stream_id', ['stream']],
  ['POST', '/users/me/subscriptions', ['subscriptions', 'principals', 'invite_only', 'can_send_message_group', 'message_retention_days', 'topics_policy', 'folder_id']],
  ['GET', '/users/me/subscriptions', ['include_subscribers']],
  ['POST', '/messages', ['type', 'to', 'topic', 'content', 'queue_id', 'local_id', 'read_by_sender']],
  ['POST', '/messages/render', ['content']],
  ['GET', '/messages', ['anchor', 'num_before', 'num_after', 'narrow', 'include_anchor', 'apply_markdown']],
  ['GET', '/messages/{id}', ['apply_markdown']],
  ['POST', '/messages/flags', ['messages', 'op', 'flag']],
  ['POST', '/register', ['event_types', 'fetch_event_types', 'narrow', 'client_capabilities', 'include_subscribers', 'apply_markdown']],
  ['GET', '/events', ['queue_id', 'last_event_id', 'dont_block']],
  ['DELETE', '/events', ['queue_id']],
  ['POST', '/fetch_api_key', ['username', 'password']],
  ['PATCH', '/messages/{id}', ['content', 'topic', 'propagate_mode', 'prev_content_sha256', 'stream_id']],
  ['DELETE', '/messages/{id}', []],
  ['GET', '/messages/{id}/history', []],
  ['POST', '/scheduled_messages', ['type', 'to', 'content', 'topic', 'scheduled_delivery_timestamp']],
  ['PATCH', '/scheduled_messages/{id}', ['type', 'to', 'content', 'topic', 'scheduled_delivery_timestamp']],
  ['POST', '/drafts', ['drafts']],
  ['PATCH', '/drafts/{id}', ['draft']],
  ['POST', '/saved_snippets', ['title', 'content']],
  ['PATCH', '/settings', ['full_name', 'email', 'timezone', 'color_scheme', 'target_users', 'old_password', 'new_password', 'emojiset']],
  ['PATCH', '/streams/{id}', ['new_name', 'description', 'is_private', 'folder_id', 'can_send_message_group', 'message_retention_days', 'topics_policy']],
  ['DELETE', '/users/me/subscriptions', ['subscriptions', 'principals']],
  ['GET', '/users/me/{id}/topics', ['allow_empty_topic_name']],
  ['POST', '/users/me/muted_users/{id}', []],
  ['DELETE', '/users/{id}', ['actions']],
  ['POST', '/realm/filters', ['pattern', 'url_template', 'example_input', 'reverse_template', 'alternative_url_templates']],
  ['POST', '/realm/playgrounds', ['name', 'pygments_language', 'url_template']],
  ['POST', '/navigation_views', ['fragment', 'is_pinned', 'name']],
  ['PATCH', '/navigation_views/{id}', ['is_pinned', 'name']],
  ['POST', '/channel_folders/create', ['name', 'description']],
  ['POST', '/users/me/presence', ['status', 'last_update_id', 'history_limit_days', 'slim_presence']],
  ['POST', '/typing', ['type', 'op', 'to', 'stream_id', 'topic']],
  ['POST', '/users/me/subscriptions/properties', ['subscription_data']],
  ['POST', '/users/me/alert_words', ['alert_words']],
  ['POST', '/user_topics', ['stream_id', 'topic', 'visibility_policy']],
  ['POST', '/user_groups/create', ['name', 'members', 'subgroups', 'can_join_group']],
  ['POST', '/user_groups/{id}/members', ['add', 'delete', 'add_subgroups']],
  ['POST', '/users/me/apns_device_token', ['token', 'appid']],
  ['POST', '/messages/{id}/reactions', ['emoji_name', 'emoji_code', 'reaction_type']],
  ['DELETE', '/messages/{id}/reactions', ['emoji_name', 'emoji_code', 'reaction_type']],
  ['POST', '/realm/emoji/{id}', []],
  ['DELETE', '/realm/emoji/{id}', []],
  ['POST', '/users/me/status', ['status_text', 'away', 'emoji_name', 'emoji_code', 'reaction_type']],
  ['GET', '/users/{id}/status', []],
  ['POST', '/users/{id}/status', ['status_text', 'emoji_name', 'emoji_code', 'reaction_type']],
];

const VALUES = [
  '',
  ' ',
  'null',
  'true',
  '-1',
  '0',
  '99999999999999999999',
  '9007199254740993',
  '1e400',
  '[]',
  '{}',
  '[null]',
  '[1,"a"]',
  '[[["deep"]]]',
  '{"new":{"direct_members":"x"}}',
  '{"operator":"channel"}',
  '[{"operator":"channel","operand":{"x":1}}]',
  '"\\u0000"',
  '\u0000',
  '\ud800',
  'x'.repeat(20000),
  '<script>alert(1)</script>',
  '%',
  '@**all**',
];

const PATH_IDS = ['0', '-1', '99999999999999999999', 'abc', '%00', '..', '1.5'];

test('malformed parameters never produce a 500', async () => {
  const failures: string[] = [];
  for (const [method, template, names] of ROUTES) {
    const ids = template.includes('{id}') ? PATH_IDS : [''];
    for (const id of ids) {
      const path = template.replace('{id}', encodeURIComponent(id));
      for (const value of VALUES) {
        const params: Record<string, string> = {};
        for (const n of names) params[n] = value;
        const res = method === 'GET' ? await member.get(path, params) : await member.request(method, path, params);
        if (res.status >= 500 || (res.status >= 400 && (res.body?.result !== 'error' || typeof res.body?.code !== 'string'))) {
          failures.push(`${method} ${path} ${JSON.stringify(value).slice(0, 40)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
        }
      }
    }
  }
  assert.deepEqual(failures, []);
});

test('odd requests: repeated keys, JSON bodies, strange content types, long paths', async () => {
  const auth = { Authorization: member.authHeader };
  const cases: Array<[string, string, { headers?: Record<string, string>; body?: string }]> = [
    ['GET', '/users?client_gravatar=true&client_gravatar=false', { headers: auth }],
    ['POST', '/messages', { headers: { ...auth, 'Content-Type': 'application/json' }, body: '{"type":"stream","to":"general","topic":"t","content":"json body"}' }],
    ['POST', '/messages', { headers: { ...auth, 'Content-Type': 'application/json' }, body: '[1,2,3]' }],
    ['POST', '/messages', { headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'type=stream' }],
    ['POST', '/messages', { headers: { ...auth, 'Content-Type': 'multipart/form-data; boundary=x' }, body: '--x--' }],
    ['POST', '/messages', { headers: { ...auth, 'Content-Type': 'application/x-www-form-urlencoded' }, body: '%%%&&&==' }],
    ['GET', '/' + 'a/'.repeat(500), { headers: auth }],
    ['GET', '/users/' + 'x'.repeat(3000), { headers: auth }],
  ];
  for (const [method, path, init] of cases) {
    const res = await rawRequest(t.url, method, path, init);
    assert.ok(res.status < 500, `${method} ${path.slice(0, 60)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    if (res.status >= 400) assert.equal(res.body.result, 'error');
  }
});
