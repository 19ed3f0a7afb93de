// What every send reads about its people is cached, as Zulip caches get_muting_users and
// alert_words_in_realm: the muted sender's messages arriving read, and has_alert_word. Each
// change (mute, unmute, alert words added or removed) must show on the very next send, after a
// send that filled the cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type Client, testServerFor, sendToChannel } from './helpers.js';

const t = testServerFor({ ann: { name: 'Ann Listener' }, bob: { name: 'Bob Talker' } });

async function flags(c: Client, id: number): Promise<string[]> {
  const res = await c.get(`/messages/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.message.flags;
}

async function subscribeBoth(name: string): Promise<void> {
  const res = await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name }], principals: [t.ann.userId, t.bob.userId] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

test('mute, then the next message from the muted arrives read; unmute, and the next is unread again', async () => {
  await subscribeBoth('porch');
  assert.deepEqual(await flags(t.ann, await sendToChannel(t.bob, 'porch', 'chat', 'before')), []);
  assert.equal((await t.ann.post(`/users/me/muted_users/${t.bob.userId}`)).status, 200);
  assert.deepEqual(await flags(t.ann, await sendToChannel(t.bob, 'porch', 'chat', 'while muted')), ['read']);
  // A direct message too.
  const dm = await t.bob.post('/messages', { type: 'direct', to: JSON.stringify([t.ann.userId]), content: 'psst' });
  assert.equal(dm.status, 200, JSON.stringify(dm.body));
  assert.deepEqual(await flags(t.ann, dm.body.id), ['read']);
  assert.equal((await t.ann.delete(`/users/me/muted_users/${t.bob.userId}`)).status, 200);
  assert.deepEqual(await flags(t.ann, await sendToChannel(t.bob, 'porch', 'chat', 'after')), []);
});

test('alert words: added, the next message containing one flags it; removed, the next does not', async () => {
  await subscribeBoth('deck');
  assert.deepEqual(await flags(t.ann, await sendToChannel(t.bob, 'deck', 'ops', 'the heron landed')), []);
  assert.equal((await t.ann.post('/users/me/alert_words', { alert_words: ['heron'] })).status, 200);
  assert.deepEqual(await flags(t.ann, await sendToChannel(t.bob, 'deck', 'ops', 'another heron')), ['has_alert_word']);
  // Another user's words change too: the organization's cached words are read again.
  assert.equal((await t.bob.post('/users/me/alert_words', { alert_words: ['egret'] })).status, 200);
  const both = await sendToChannel(t.owner, 'deck', 'ops', 'a heron and an egret');
  assert.deepEqual(await flags(t.ann, both), ['has_alert_word']);
  assert.deepEqual(await flags(t.bob, both), ['has_alert_word']);
  assert.equal((await t.ann.delete('/users/me/alert_words', { alert_words: ['HERON'] })).status, 200);
  assert.deepEqual(await flags(t.ann, await sendToChannel(t.bob, 'deck', 'ops', 'heron again')), []);
  // One's own message never flags one's own words.
  assert.deepEqual(await flags(t.bob, await sendToChannel(t.bob, 'deck', 'ops', 'my egret')), []);
});
