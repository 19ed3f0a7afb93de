// Zulip's "clients that do not declare capability X get Y" rules that released clients rely on:
// stream_typing_notifications, bulk_message_deletion, notification_settings_null, archived_channels,
// include_deactivated_groups (user_settings_object: legacy_settings.test.ts; user_list_incomplete
// and empty_topic_name: their own tests).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client, queuedEvents, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let ann: Client;
let bob: Client;

before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Oldclient' });
  bob = await t.createUser({ name: 'Bob Newclient' });
  for (const c of [ann, bob]) await c.post('/users/me/subscriptions', { subscriptions: [{ name: 'caps' }] });
});
after(async () => {
  await t.close();
});

const register = async (c: Client, params: Parameters<Client['post']>[1]) => {
  const res = await c.post('/register', params);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

test('stream_typing_notifications: channel typing only for clients that declare it; direct typing for all', async () => {
  const old = (await register(bob, { event_types: ['typing'] })).queue_id;
  const modern = (await register(bob, { event_types: ['typing'], client_capabilities: { stream_typing_notifications: true } })).queue_id;
  const streamId = (await ann.get('/get_stream_id', { stream: 'caps' })).body.stream_id;
  assert.equal((await ann.post('/typing', { op: 'start', type: 'stream', stream_id: streamId, topic: 't' })).status, 200);
  assert.equal((await ann.post('/typing', { op: 'start', type: 'direct', to: [bob.userId] })).status, 200);
  assert.deepEqual((await queuedEvents(bob, old)).map((e) => e.message_type), ['direct']);
  assert.deepEqual((await queuedEvents(bob, modern)).map((e) => e.message_type), ['stream', 'direct']);
});

test('bulk_message_deletion: without it, one delete_message event per message, with message_id', async () => {
  const ids: number[] = [];
  for (const n of [1, 2]) ids.push((await ann.post('/messages', { type: 'stream', to: 'caps', topic: 'doomed', content: `m${n}` })).body.id);
  const old = (await register(bob, { event_types: ['delete_message'] })).queue_id;
  const modern = (await register(bob, { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } })).queue_id;
  const streamId = (await ann.get('/get_stream_id', { stream: 'caps' })).body.stream_id;
  assert.equal((await t.owner.post(`/streams/${streamId}/delete_topic`, { topic_name: 'doomed' })).status, 200);
  const legacy = await queuedEvents(bob, old);
  assert.deepEqual(legacy.map((e) => [e.type, e.message_id, 'message_ids' in e, e.message_type, e.topic]).sort((a, b) => Number(a[1]) - Number(b[1])), ids.map((id) => ['delete_message', id, false, 'stream', 'doomed']));
  const bulk = (await queuedEvents(bob, modern)).flatMap((e) => e.message_ids);
  assert.deepEqual(bulk.sort((a: number, b: number) => a - b), ids);
});

test('bulk_message_deletion off and empty_topic_name off: each delete_message names the empty topic "general chat", as the bulk form does', async () => {
  const id = (await ann.post('/messages', { type: 'stream', to: 'caps', topic: '', content: 'in general chat' })).body.id;
  const old = (await register(bob, { event_types: ['delete_message'] })).queue_id;
  const bulk = (await register(bob, { event_types: ['delete_message'], client_capabilities: { bulk_message_deletion: true } })).queue_id;
  assert.equal((await ann.delete(`/messages/${id}`)).status, 200);
  assert.deepEqual((await queuedEvents(bob, bulk)).map((e) => e.topic), ['general chat']);
  assert.deepEqual((await queuedEvents(bob, old)).map((e) => [e.message_id, e.topic]), [[id, 'general chat']]);
});

test('notification_settings_null: without it, unset channel notification settings read as the global ones', async () => {
  await ann.patch('/settings', { enable_stream_push_notifications: true });
  const old = (await register(ann, { fetch_event_types: ['subscription'] })).subscriptions.find((s: any) => s.name === 'caps');
  assert.deepEqual([old.desktop_notifications, old.push_notifications, old.audible_notifications, old.email_notifications, old.wildcard_mentions_notify], [false, true, false, false, true]);
  const modern = (await register(ann, { fetch_event_types: ['subscription'], client_capabilities: { notification_settings_null: true } })).subscriptions.find((s: any) => s.name === 'caps');
  assert.equal(modern.push_notifications, null);
});

test('archived_channels and include_deactivated_groups: listed only for clients that declare them', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'attic' }] });
  const atticId = (await t.owner.get('/get_stream_id', { stream: 'attic' })).body.stream_id;
  assert.equal((await t.owner.delete(`/streams/${atticId}`)).status, 200);
  const names = (state: any) => [...state.subscriptions, ...state.unsubscribed, ...state.never_subscribed].map((s: any) => s.name);
  const types = ['subscription', 'stream', 'realm_user_groups'];
  const old = await register(t.owner, { fetch_event_types: types });
  const modern = await register(t.owner, { fetch_event_types: types, client_capabilities: { archived_channels: true, include_deactivated_groups: true } });
  assert.ok(!names(old).includes('attic'));
  assert.ok(names(modern).includes('attic'));
  assert.equal(modern.streams.find((s: any) => s.name === 'attic')?.is_archived, true);

  const made = await t.owner.post('/user_groups/create', { name: 'retired', description: 'gone', members: [ann.userId] });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  assert.equal((await t.owner.post(`/user_groups/${made.body.group_id}/deactivate`)).status, 200);
  const oldGroups = (await register(t.owner, { fetch_event_types: ['realm_user_groups'] })).realm_user_groups;
  const newGroups = (await register(t.owner, { fetch_event_types: ['realm_user_groups'], client_capabilities: { include_deactivated_groups: true } })).realm_user_groups;
  assert.equal(oldGroups.some((g: any) => g.name === 'retired'), false);
  assert.equal(newGroups.find((g: any) => g.name === 'retired')?.deactivated, true);
});

test('empty_topic_name: without it, the empty topic is "general chat" in unread counts and topic events too', async () => {
  const sent = await ann.post('/messages', { type: 'stream', to: 'caps', topic: '', content: 'no topic at all' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const fetch = ['message', 'update_message_flags', 'user_topic'];
  const old = await register(bob, { fetch_event_types: fetch, event_types: ['user_topic'] });
  const modern = await register(bob, { fetch_event_types: fetch, event_types: ['user_topic'], client_capabilities: { empty_topic_name: true } });
  const topicsOf = (state: any) => state.unread_msgs.streams.filter((s: any) => s.unread_message_ids.includes(sent.body.id)).map((s: any) => s.topic);
  assert.deepEqual(topicsOf(old), ['general chat']);
  assert.deepEqual(topicsOf(modern), ['']);
  const streamId = (await bob.get('/get_stream_id', { stream: 'caps' })).body.stream_id;
  assert.equal((await bob.post('/user_topics', { stream_id: streamId, topic: '', visibility_policy: 3 })).status, 200);
  assert.deepEqual((await queuedEvents(bob, old.queue_id)).filter((e) => e.type === 'user_topic').map((e) => e.topic_name), ['general chat']);
  assert.deepEqual((await queuedEvents(bob, modern.queue_id)).filter((e) => e.type === 'user_topic').map((e) => e.topic_name), ['']);
});

test('linkifier_url_template: without it, realm_linkifiers is empty and its events are not sent; realm_filters is always empty', async () => {
  const made = await t.owner.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/{id}' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const fetch = ['realm_linkifiers', 'realm_filters'];
  const old = await register(bob, { fetch_event_types: fetch, event_types: ['realm_linkifiers'] });
  const modern = await register(bob, { fetch_event_types: fetch, event_types: ['realm_linkifiers'], client_capabilities: { linkifier_url_template: true } });
  assert.deepEqual([old.realm_linkifiers, old.realm_filters], [[], []]);
  assert.deepEqual(modern.realm_linkifiers.map((l: any) => l.url_template), ['https://tracker.example.com/{id}']);
  assert.deepEqual(modern.realm_filters, []);
  assert.equal((await t.owner.delete(`/realm/filters/${made.body.id}`)).status, 200);
  assert.deepEqual(await queuedEvents(bob, old.queue_id), []);
  assert.deepEqual((await queuedEvents(bob, modern.queue_id)).map((e) => [e.type, e.realm_linkifiers.length]), [['realm_linkifiers', 0]]);
});

test('include_deactivated_groups: without it, a deactivation is a remove event and a deactivated group is not heard of again', async () => {
  const made = await t.owner.post('/user_groups/create', { name: 'sunset', description: 'soon gone', members: [ann.userId] });
  const id = made.body.group_id;
  const old = await register(bob, { event_types: ['user_group'] });
  const modern = await register(bob, { event_types: ['user_group'], client_capabilities: { include_deactivated_groups: true } });
  assert.equal((await t.owner.post(`/user_groups/${id}/deactivate`)).status, 200);
  assert.equal((await t.owner.patch(`/user_groups/${id}`, { name: 'sunset (old)' })).status, 200);
  assert.deepEqual((await queuedEvents(bob, old.queue_id)).map((e) => [e.type, e.op, e.group_id]), [['user_group', 'remove', id]]);
  assert.deepEqual((await queuedEvents(bob, modern.queue_id)).map((e) => [e.op, e.data]), [
    ['update', { deactivated: true }],
    ['update', { name: 'sunset (old)' }],
  ]);
});
