// What a sixth walk through the client found: a muted channel's topics showed their unread counts
// as brightly as the others (Zulip's left sidebar fades them), and followed topics did not raise
// desktop notifications by enable_followed_topic_desktop_notifications as Zulip's do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hiddenRecordingNotifications, loggedIn, makeChannel, notificationsShown, screenshot, testScene } from './harness.js';

let quiet = 0;
const s = testScene(async () => {
  quiet = await makeChannel(s.srv.owner, 'quiet', [s.srv.owner, s.alice, s.bob]);
  const ok = (res: { status: number; body: unknown }) => assert.equal(res.status, 200, JSON.stringify(res.body));
  // Alice mutes #quiet but unmutes one topic there, and follows a topic in #general.
  ok(await s.alice.api.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: quiet, property: 'is_muted', value: true }]) }));
  ok(await s.alice.api.post('/user_topics', { stream_id: quiet, topic: 'kept', visibility_policy: 2 }));
  ok(await s.alice.api.post('/user_topics', { stream_id: s.general, topic: 'watched', visibility_policy: 3 }));
});

test("a muted channel's topics show faded unread counts, bright only where unmuted", async () => {
  await s.bob.api.post('/messages', { type: 'stream', to: quiet, topic: 'ignored', content: 'ignored news' });
  await s.bob.api.post('/messages', { type: 'stream', to: quiet, topic: 'kept', content: 'kept news' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    // A topic of #quiet with no messages: its topics listed, none of their messages read on sight.
    await a.page.goto(`${s.srv.url}/#narrow/channel/${quiet}-quiet/topic/elsewhere`);
    const topics = a.page.getByRole('list', { name: 'Topics in quiet' });
    await topics.getByRole('link', { name: /ignored/ }).waitFor({ timeout: 5000 });
    const opacity = (topic: string) => topics.getByRole('link', { name: new RegExp(topic) }).locator('.count').evaluate((el) => Number(getComputedStyle(el).opacity));
    assert.ok((await opacity('ignored')) < 0.7, 'the count of a topic muted with its channel is faded');
    assert.equal(await opacity('kept'), 1, 'an unmuted topic keeps its count bright');
    await screenshot(a.page, 'walk6-muted-channel-topics');
  } finally {
    await a.context.close();
  }
});


test('a followed topic notifies on the desktop though its channel would not, unless the setting is off', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, undefined, hiddenRecordingNotifications(s.srv.url));
  try {
    await a.page.goto(`${s.srv.url}/#inbox`);
    await a.page.getByRole('region', { name: 'Inbox' }).waitFor({ timeout: 5000 });
    // Followed now, in the muted channel: the user_topic event tells the page.
    assert.equal((await s.alice.api.post('/user_topics', { stream_id: quiet, topic: 'followed quiet', visibility_policy: 3 })).status, 200);
    await a.page.waitForTimeout(500);
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'other', content: 'Not followed' });
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'watched', content: 'Followed at load' });
    await s.bob.api.post('/messages', { type: 'stream', to: quiet, topic: 'followed quiet', content: 'Followed by event' });
    await notificationsShown(a.page, 2);
    await a.page.waitForTimeout(500);
    assert.deepEqual(await notificationsShown(a.page), ['Bob Brown (#general > watched): Followed at load', 'Bob Brown (#quiet > followed quiet): Followed by event']);
    // enable_followed_topic_desktop_notifications off: followed topics notify no more.
    assert.equal((await s.alice.api.patch('/settings', { enable_followed_topic_desktop_notifications: false })).status, 200);
    await a.page.waitForTimeout(500);
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'watched', content: 'Setting off' });
    await s.bob.api.post('/messages', { type: 'private', to: JSON.stringify([s.alice.api.userId]), content: 'A direct message' });
    await notificationsShown(a.page, 3);
    await a.page.waitForTimeout(500);
    assert.deepEqual((await notificationsShown(a.page)).slice(2), ['Bob Brown (Direct message): A direct message']);
  } finally {
    await s.alice.api.patch('/settings', { enable_followed_topic_desktop_notifications: true });
    await a.context.close();
  }
});
