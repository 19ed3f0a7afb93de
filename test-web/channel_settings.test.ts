// A subscribed channel's own settings (Zulip's channel settings, Personal): its colour and mute,
// opened from the sidebar's button beside the channel, saved with POST
// /users/me/subscriptions/properties, and the sidebar following: the swatch takes the colour, a
// muted channel is dimmed, listed after the others, and its unread messages are not counted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loggedIn, makeChannel, screenshot, testScene } from './harness.js';

let announce = 0;
const s = testScene(async () => {
  announce = await makeChannel(s.srv.owner, 'announce', [s.srv.owner, s.alice]);
  for (const content of ['news one', 'news two']) await s.bob.api.post('/messages', { type: 'stream', to: announce, topic: 'news', content });
  await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'chat', content: 'hello' });
});

async function subscription(id: number): Promise<{ color: string; is_muted: boolean }> {
  const res = await s.alice.api.get('/users/me/subscriptions');
  return (res.body.subscriptions as Array<{ stream_id: number; color: string; is_muted: boolean }>).find((x) => x.stream_id === id)!;
}

test("a channel's colour and mute, from the sidebar's button to its settings; the sidebar follows", async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const blocked: string[] = [];
  a.page.on('console', (m) => m.text().includes('Content Security Policy') && blocked.push(m.text()));
  try {
    const sidebar = a.page.getByRole('navigation', { name: 'Conversations' });
    const row = sidebar.getByRole('link', { name: /# announce/ });
    const channelNames = () => sidebar.locator('.channels .chan .name').allTextContents();
    await row.filter({ hasText: '2' }).waitFor({ timeout: 5000 });
    assert.deepEqual(await channelNames(), ['# announce', '# general']);
    await sidebar.getByRole('link', { name: /^Inbox/ }).filter({ hasText: '3' }).waitFor({ timeout: 5000 });

    await row.hover();
    await sidebar.getByRole('button', { name: 'Settings for #announce' }).click();
    await a.page.getByRole('heading', { name: '#announce', level: 1 }).waitFor({ timeout: 5000 });
    assert.match(a.page.url(), new RegExp(`#channels/${announce}/announce/personal$`));

    // Muted: saved, dimmed and marked in the sidebar, after #general, its unread not counted.
    const mute = a.page.getByRole('checkbox', { name: 'Mute channel' });
    await mute.check();
    await a.page.getByRole('status').filter({ hasText: '#announce muted.' }).waitFor({ timeout: 5000 });
    await sidebar.getByRole('link', { name: /# announce \(muted\)/ }).waitFor({ timeout: 5000 });
    assert.equal((await subscription(announce)).is_muted, true);
    assert.deepEqual(await channelNames(), ['# general', '# announce']);
    assert.ok(Number(await row.evaluate((el) => getComputedStyle(el).opacity)) < 0.7);
    assert.equal(await row.locator('.count').count(), 0);
    await sidebar.getByRole('link', { name: /^Inbox/ }).filter({ hasText: /^Inbox\s*1$/ }).waitFor({ timeout: 5000 });

    // The colour: saved, and the sidebar's swatch (and the heading's) takes it.
    await a.page.getByLabel('Channel color').fill('#c0392b');
    await a.page.getByRole('status').filter({ hasText: "#announce's color changed." }).waitFor({ timeout: 5000 });
    assert.equal((await subscription(announce)).color, '#c0392b');
    await a.page.waitForFunction(() => [...document.querySelectorAll('.sidebar .chan .swatch')].some((el) => getComputedStyle(el).backgroundColor === 'rgb(192, 57, 43)'));
    await screenshot(a.page, 'channel-settings');

    // Unmuted: back in its place with its count.
    await mute.uncheck();
    await a.page.getByRole('status').filter({ hasText: '#announce unmuted.' }).waitFor({ timeout: 5000 });
    await row.filter({ hasText: '2' }).waitFor({ timeout: 5000 });
    assert.deepEqual(await channelNames(), ['# announce', '# general']);
    assert.equal((await subscription(announce)).is_muted, false);
    assert.deepEqual(blocked, []);
  } finally {
    await a.context.close();
  }
});

test("on a phone the channel's settings button shows in the drawer without pointing at it", async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 390, height: 844 }, undefined, { hasTouch: true, isMobile: true });
  try {
    await a.page.getByRole('button', { name: 'Show conversations' }).click();
    const button = a.page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'Settings for #general' });
    await button.waitFor({ timeout: 5000 });
    assert.equal(await button.evaluate((el) => getComputedStyle(el).opacity), '1');
    const box = (await button.boundingBox())!;
    assert.ok(box.x + box.width <= 390 && box.width >= 16, JSON.stringify(box));
    await screenshot(a.page, 'channel-settings-drawer');
    await button.tap();
    await a.page.getByRole('heading', { name: '#general', level: 1 }).waitFor({ timeout: 5000 });
    assert.equal(await a.page.getByRole('button', { name: 'Show conversations' }).getAttribute('aria-expanded'), 'false');
    await a.page.getByRole('checkbox', { name: 'Mute channel' }).waitFor({ timeout: 5000 });
    await screenshot(a.page, 'channel-settings-phone');
  } finally {
    await a.context.close();
  }
});

test("a muted channel's messages leave the combined feed (Zulip's in:home), at once and as they arrive", async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#feed`);
    const msg = (text: string) => a.page.getByRole('article').filter({ hasText: text });
    await msg('news two').waitFor({ timeout: 5000 });
    await msg('hello').waitFor({ timeout: 5000 });
    // Muted elsewhere (another tab, the API): the open feed follows.
    const muted = await s.alice.api.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: announce, property: 'is_muted', value: true }]) });
    assert.equal(muted.status, 200, JSON.stringify(muted.body));
    await msg('news two').waitFor({ state: 'detached', timeout: 5000 });
    await s.bob.api.post('/messages', { type: 'stream', to: announce, topic: 'news', content: 'news three' });
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'chat', content: 'after the news' });
    await msg('after the news').waitFor({ timeout: 5000 });
    assert.equal(await msg('news three').count(), 0);
    // Loaded afresh, still without it; the channel's own view has them all.
    await a.page.reload();
    await msg('after the news').waitFor({ timeout: 5000 });
    assert.equal(await msg('news').count(), 1);
    await a.page.goto(`${s.srv.url}/#narrow/channel/${announce}-announce`);
    await msg('news three').waitFor({ timeout: 5000 });
    await s.alice.api.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: announce, property: 'is_muted', value: false }]) });
  } finally {
    await a.context.close();
  }
});
