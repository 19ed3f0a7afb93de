// What a fourth walk through the client found: the Inbox listing muted channels' and muted
// topics' conversations that the unread counts leave out, a topic unmuted inside a muted channel
// showing in the combined feed only when loaded afresh, and a sender's run going on across days.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loggedIn, makeChannel, screenshot, testScene } from './harness.js';

let quiet = 0;
const s = testScene(async () => {
  quiet = await makeChannel(s.srv.owner, 'quiet', [s.srv.owner, s.alice, s.bob]);
  const ok = (res: { status: number; body: unknown }) => assert.equal(res.status, 200, JSON.stringify(res.body));
  // Alice mutes #quiet but unmutes its topic "kept", and mutes #general's topic "hushed here".
  ok(await s.alice.api.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: quiet, property: 'is_muted', value: true }]) }));
  ok(await s.alice.api.post('/user_topics', { stream_id: quiet, topic: 'kept', visibility_policy: 2 }));
  ok(await s.alice.api.post('/user_topics', { stream_id: s.general, topic: 'hushed here', visibility_policy: 1 }));
});

test("the Inbox leaves out muted topics and a muted channel's topics, but not one unmuted there", async () => {
  const say = (to: number, topic: string, content: string) => s.bob.api.post('/messages', { type: 'stream', to, topic, content });
  await say(quiet, 'kept', 'kept news');
  await say(quiet, 'ignored', 'ignored news');
  await say(s.general, 'hushed here', 'hushed words');
  await say(s.general, 'open', 'open words');
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const a = await loggedIn(s.browser, s.srv.url, s.alice, viewport);
    try {
      await a.page.goto(`${s.srv.url}/#inbox`);
      const inbox = a.page.getByRole('region', { name: 'Inbox' });
      await inbox.getByRole('link', { name: /open/ }).waitFor({ timeout: 5000 });
      const rows = (await inbox.getByRole('listitem').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).sort();
      // As Zulip's Inbox and its unread counts: the unmuted topic counts, in the list and the total.
      assert.deepEqual(rows, ['general › open 1', 'quiet › kept 1']);
      if (viewport.width > 1000) await a.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /^Inbox/ }).filter({ hasText: /^Inbox\s*2$/ }).waitFor({ timeout: 5000 });
      await screenshot(a.page, viewport.width > 1000 ? 'walk4-inbox' : 'walk4-inbox-phone');
    } finally {
      await a.context.close();
    }
  }
});

test('a topic unmuted in a muted channel shows its new messages in the combined feed as they arrive', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#feed`);
    const msg = (text: string) => a.page.getByRole('article').filter({ hasText: text });
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'chat', content: 'before the live ones' });
    await msg('before the live ones').waitFor({ timeout: 5000 });
    await s.bob.api.post('/messages', { type: 'stream', to: quiet, topic: 'ignored', content: 'live in a muted channel' });
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'hushed here', content: 'live in a muted topic' });
    await s.bob.api.post('/messages', { type: 'stream', to: quiet, topic: 'kept', content: 'live in the unmuted topic' });
    await msg('live in the unmuted topic').waitFor({ timeout: 5000 });
    assert.equal(await msg('live in a muted').count(), 0);
  } finally {
    await a.context.close();
  }
});

test("a sender's run restarts at a new day, with a date divider between the days", async () => {
  for (const content of ['day one a', 'day one b', 'day two a', 'day two b']) await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'days', content });
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 390, height: 844 }, undefined, { hasTouch: true, isMobile: true });
  try {
    // The server dates messages as they are sent: the first two are moved three days back as the
    // client receives them.
    const threeDays = 3 * 86400;
    await a.page.route('**/api/v1/messages?**', async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      for (const m of body.messages ?? []) if (String(m.content).includes('day one')) m.timestamp -= threeDays;
      await route.fulfill({ response: res, json: body });
    });
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/days`);
    const msg = (text: string) => a.page.getByRole('article').filter({ hasText: text });
    await msg('day two b').waitFor({ timeout: 5000 });
    const nameShown = (text: string) => msg(text).evaluate((el) => el.querySelector('.sender')!.getBoundingClientRect().width > 2);
    assert.deepEqual(await Promise.all(['day one a', 'day one b', 'day two a', 'day two b'].map(nameShown)), [true, false, true, false]);
    // One divider, between the days, saying which day the next messages are of.
    const divider = a.page.locator('.date-divider');
    assert.equal(await divider.count(), 1);
    assert.equal((await divider.innerText()).trim(), 'Today');
    const [b, d, c] = await Promise.all([msg('day one b').boundingBox(), divider.boundingBox(), msg('day two a').boundingBox()]);
    assert.ok(b && d && c && b.y + b.height <= d.y + 1 && d.y + d.height <= c.y + 1, `the divider between the days (${JSON.stringify([b, d, c])})`);
    assert.equal(await a.page.evaluate(() => document.documentElement.scrollWidth), 390);
    await screenshot(a.page, 'walk4-date-divider');
  } finally {
    await a.context.close();
  }
});
