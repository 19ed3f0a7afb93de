// What a fifth walk through the client found: desktop notifications and the n key treating every
// topic of a muted channel as muted (Zulip notifies and visits a topic unmuted there), and
// recipient headers without the date Zulip's recipient bar shows at its right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hiddenRecordingNotifications, loggedIn, makeChannel, notificationsShown, screenshot, testScene } from './harness.js';

let quiet = 0;
let loud = 0;
const s = testScene(async () => {
  quiet = await makeChannel(s.srv.owner, 'quiet', [s.srv.owner, s.alice, s.bob]);
  loud = await makeChannel(s.srv.owner, 'loud', [s.srv.owner, s.alice, s.bob]);
  const ok = (res: { status: number; body: unknown }) => assert.equal(res.status, 200, JSON.stringify(res.body));
  // Alice mutes #quiet and #loud but unmutes a topic in each; #loud asks for desktop notifications.
  const muted = [quiet, loud].map((id) => ({ stream_id: id, property: 'is_muted', value: true }));
  ok(await s.alice.api.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([...muted, { stream_id: loud, property: 'desktop_notifications', value: true }]) }));
  ok(await s.alice.api.post('/user_topics', { stream_id: quiet, topic: 'kept', visibility_policy: 2 }));
  ok(await s.alice.api.post('/user_topics', { stream_id: loud, topic: 'kept loud', visibility_policy: 2 }));
});

test("n goes to an unread topic unmuted in a muted channel, past the channel's other topics", async () => {
  await s.bob.api.post('/messages', { type: 'stream', to: quiet, topic: 'ignored', content: 'ignored news' });
  await s.bob.api.post('/messages', { type: 'stream', to: quiet, topic: 'kept', content: 'kept news' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    await a.page.getByRole('region', { name: 'Messages' }).waitFor({ timeout: 5000 });
    await a.page.locator('body').click({ position: { x: 700, y: 5 } }).catch(() => {});
    await a.page.keyboard.press('n');
    await a.page.waitForFunction(() => decodeURIComponent(location.hash).includes('/topic/kept'), undefined, { timeout: 5000 });
    await a.page.getByRole('article').filter({ hasText: 'kept news' }).waitFor({ timeout: 5000 });
    await screenshot(a.page, 'walk5-n-unmuted-topic');
  } finally {
    await a.context.close();
  }
});

test('desktop notifications come from a topic unmuted in a muted channel, not from its other topics', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, undefined, hiddenRecordingNotifications(s.srv.url));
  try {
    await a.page.goto(`${s.srv.url}/#inbox`);
    await a.page.getByRole('region', { name: 'Inbox' }).waitFor({ timeout: 5000 });
    await s.bob.api.post('/messages', { type: 'stream', to: loud, topic: 'other', content: 'In the muted channel' });
    await s.bob.api.post('/messages', { type: 'stream', to: loud, topic: 'kept loud', content: 'In the unmuted topic' });
    await notificationsShown(a.page, 1);
    await a.page.waitForTimeout(500);
    assert.deepEqual(await notificationsShown(a.page), ['Bob Brown (#loud > kept loud): In the unmuted topic']);
  } finally {
    await a.context.close();
  }
});

test("each recipient header shows its group's first day at its right, pinned too", async () => {
  const say = (topic: string, content: string) => s.bob.api.post('/messages', { type: 'stream', to: s.general, topic, content });
  for (let i = 0; i < 30; i++) await say('dated', `last year ${i}`);
  await say('recent', 'three days ago');
  await say('recent', 'yesterday');
  await say('dated', 'today');
  const day = 86400;
  const shift = (content: string) => (content.includes('last year') ? 400 * day : content.includes('three days') ? 3 * day : content.includes('yesterday') ? day : 0);
  // Read: the feed opens at its bottom.
  assert.equal((await s.alice.api.post('/mark_stream_as_read', { stream_id: s.general })).status, 200);
  const now = Date.now();
  const label = (ago: number) => new Date(now - ago * 1000).toLocaleDateString('en-US', { month: 'short', day: 'numeric', year: ago > 366 * day ? 'numeric' : undefined });
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const phone = viewport.width < 500;
    const a = await loggedIn(s.browser, s.srv.url, s.alice, viewport, undefined, { locale: 'en-US', ...(phone ? { hasTouch: true, isMobile: true } : {}) });
    try {
      // The server dates messages as they are sent: the client receives them moved back in time.
      await a.page.route('**/api/v1/messages?**', async (route) => {
        const res = await route.fetch();
        const body = await res.json();
        for (const m of body.messages ?? []) m.timestamp -= shift(String(m.content));
        await route.fulfill({ response: res, json: body });
      });
      await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
      const feed = a.page.getByRole('region', { name: 'Messages' });
      await feed.getByRole('article').filter({ hasText: 'today' }).last().waitFor({ timeout: 5000 });
      // The last two groups: "recent" from three days ago (with a divider at yesterday), "dated" today.
      const heads = feed.locator('h2.recipient');
      const dates = async () => (await heads.evaluateAll((hs) => hs.map((h) => `${h.querySelector('.where')?.textContent} | ${h.querySelector('time')?.textContent}`))).slice(-2);
      assert.deepEqual(await dates(), [`# general › recent | ${label(3 * day)}`, '# general › dated | Today']);
      assert.deepEqual(await feed.locator('.date-divider').allInnerTexts(), ['Yesterday']);
      // The date at the header's right end, on the line of the channel and topic.
      const boxes = await heads.last().evaluate((h) => [h, h.querySelector('.where')!, h.querySelector('time')!].map((e) => e.getBoundingClientRect().toJSON()));
      const [hb, wb, tb] = boxes as Array<{ top: number; bottom: number; right: number; left: number }>;
      assert.ok(Math.abs(hb.right - 8 - tb.right) <= 1 && tb.left > wb.right && tb.top >= hb.top && tb.bottom <= hb.bottom, `the date at the right (${JSON.stringify(boxes)})`);
      await screenshot(a.page, phone ? 'walk5-header-dates-phone' : 'walk5-header-dates');
      // Scrolled into last year's group: its header, pinned at the top, dated with the year.
      await feed.evaluate((el) => (el.scrollTop = el.scrollHeight / 3));
      const pinned = a.page.locator('.recipient.pinned');
      await pinned.filter({ hasText: 'dated' }).waitFor({ timeout: 3000 });
      assert.equal(await pinned.locator('time').innerText(), label(400 * day));
      assert.match(label(400 * day), /^[A-Z][a-z]{2} \d{1,2}, \d{4}$/);
      assert.equal(await a.page.evaluate(() => document.documentElement.scrollWidth), viewport.width);
      await screenshot(a.page, phone ? 'walk5-pinned-date-phone' : 'walk5-pinned-date');
    } finally {
      await a.context.close();
    }
  }
});
