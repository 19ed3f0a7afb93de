// What a person sees overlap or slip away, checked by the boxes on screen: the "Jump to first
// unread" button over the feed, the pinned recipient header over the next group's header, and
// the keyboard's focus leaving the shortcuts dialog for the page behind it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { makeChannel, testScene, loggedIn } from './harness.js';

let small: number;

const s = testScene(async () => {
  for (const topic of ['alpha', 'beta', 'gamma'])
    for (let i = 0; i < 12; i++) await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic, content: `${topic} message ${i}` });
  // Two short topics: on a low window both groups are in the page and the feed still scrolls.
  small = await makeChannel(s.srv.owner, 'small', [s.alice, s.bob]);
  for (const topic of ['alpha', 'beta'])
    for (let i = 0; i < 4; i++) await s.bob.api.post('/messages', { type: 'stream', to: small, topic, content: `${topic} message ${i}` });
  await s.alice.api.post('/messages', { type: 'stream', to: small, topic: 'alpha', content: 'my own short note' });
  const table = `| col one | col two | col three | col four | col five | col six |\n|---|---|---|---|---|---|\n|${' cell content here |'.repeat(6)}`;
  await s.bob.api.post('/messages', { type: 'stream', to: small, topic: 'table', content: table });
});

type Box = { top: number; bottom: number; left: number; right: number };
const box = (page: Page, selector: string) =>
  page.locator(selector).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  }) as Promise<Box>;
const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

test('at 360 px, "Jump to first unread" covers nothing of the feed and leaves the channel name whole', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 360, height: 740 });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    const jump = a.page.getByRole('button', { name: 'Jump to first unread' });
    await jump.waitFor({ timeout: 5000 });
    await a.page.getByText('The start of this conversation.').waitFor({ timeout: 5000 });
    const feed = await box(a.page, '[role=region][aria-label=Messages]');
    const button = await box(a.page, 'button[aria-label="Jump to first unread"], button:has-text("Jump to first unread")');
    assert.ok(!overlaps(feed, button), `the button ${JSON.stringify(button)} lies over the feed ${JSON.stringify(feed)}`);
    const heading = a.page.getByRole('heading', { name: '#general', level: 1 });
    assert.ok(await heading.evaluate((el) => el.scrollWidth <= el.clientWidth), 'the channel name is cut short');
  } finally {
    await a.context.close();
  }
});

test("at 360 px an administrator's header keeps a usable search box, and the conversations drawer opens below it", async () => {
  const o = await loggedIn(s.browser, s.srv.url, s.srv.owner, { width: 360, height: 740 });
  try {
    await o.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    const search = await o.page.getByRole('searchbox', { name: 'Search' }).boundingBox();
    assert.ok(search && search.width >= 150, `the search box is ${search?.width}px wide`);
    for (const name of ['Settings', 'Administration']) assert.ok(await o.page.getByRole('link', { name }).isVisible(), `${name} shown`);
    assert.ok(await o.page.getByRole('button', { name: 'Log out' }).isVisible());
    await o.page.getByRole('button', { name: 'Show conversations' }).click();
    const drawer = o.page.getByRole('navigation', { name: 'Conversations' });
    await o.page.waitForTimeout(300);
    const header = await box(o.page, 'header.top');
    const side = await box(o.page, 'nav.sidebar');
    assert.ok(side.top >= header.bottom - 1, `the drawer (top ${side.top}) starts under the header (bottom ${header.bottom})`);
    await drawer.getByRole('link', { name: /^Inbox/ }).click();
    await o.page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor({ timeout: 5000 });
  } finally {
    await o.context.close();
  }
});

test('at 360 px the conversations drawer closes on the link to the open view, on Esc and on a tap beside it', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 360, height: 740 });
  const isOpen = () => a.page.getByRole('button', { name: 'Show conversations' }).getAttribute('aria-expanded');
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    await a.page.getByRole('article').first().waitFor({ timeout: 5000 });
    const menu = a.page.getByRole('button', { name: 'Show conversations' });
    await menu.click();
    await a.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /general/ }).first().click();
    await a.page.waitForFunction(() => document.querySelector('button.menu')?.getAttribute('aria-expanded') === 'false', undefined, { timeout: 2000 });
    await menu.click();
    assert.equal(await isOpen(), 'true');
    await a.page.keyboard.press('Escape');
    await a.page.waitForFunction(() => document.querySelector('button.menu')?.getAttribute('aria-expanded') === 'false', undefined, { timeout: 2000 });
    await menu.click();
    await a.page.waitForTimeout(300);
    await a.page.mouse.click(345, 500);
    await a.page.waitForFunction(() => document.querySelector('button.menu')?.getAttribute('aria-expanded') === 'false', undefined, { timeout: 2000 });
    await menu.click();
    await a.page.getByRole('button', { name: 'New direct message' }).click();
    await a.page.getByRole('combobox', { name: 'To' }).fill('Bob');
    await a.page.getByRole('option', { name: /Bob Brown/ }).click();
    assert.equal(await isOpen(), 'false');
  } finally {
    await a.context.close();
  }
});

test('at 360 px a wide table scrolls sideways in its message instead of squeezing its words apart', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 360, height: 740 });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${small}-small/topic/table`);
    const table = a.page.getByRole('article').filter({ hasText: 'col six' }).locator('table');
    await table.waitFor({ timeout: 5000 });
    const narrowest = await table.evaluate((t) => Math.min(...[...t.querySelectorAll('td, th')].map((c) => c.getBoundingClientRect().width)));
    assert.ok(narrowest >= 60, `a cell only ${narrowest}px wide`);
    assert.equal(await a.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth), 0, 'the page itself does not scroll sideways');
  } finally {
    await a.context.close();
  }
});

test('at 360 px a tap on a message selects it and does nothing else (no action slides under the finger)', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 360, height: 740 });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${small}-small/topic/alpha`);
    // Her own message has the most actions (edit and delete too), Bob's fewer.
    for (const text of ['my own short note', 'alpha message 3']) {
      const msg = a.page.getByRole('article').filter({ hasText: text });
      await msg.click();
      await a.page.waitForTimeout(300);
      assert.match((await msg.getAttribute('class')) ?? '', /selected/);
      assert.equal(await a.page.getByRole('dialog').count(), 0, 'no emoji picker opened');
      assert.equal(await msg.getByRole('button', { name: 'Unstar' }).count(), 0, 'not starred');
      assert.equal(await a.page.getByRole('textbox', { name: 'Message' }).inputValue(), '', 'nothing quoted');
      await msg.getByRole('button', { name: 'Add reaction' }).waitFor({ timeout: 2000 });
    }
  } finally {
    await a.context.close();
  }
});

test('scrolling, the pinned header is pushed away by the next one instead of covering it', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 1000, height: 420 });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${small}-small`);
    await a.page.getByRole('article').filter({ hasText: 'beta message 0' }).waitFor({ state: 'attached', timeout: 5000 });
    // The beta header brought 20 and 35 px below the top of the feed, alpha's header pinned above it.
    const betaHeader = a.page.locator('h2.recipient').filter({ hasText: 'beta' });
    for (const gap of [20, 35]) {
      await betaHeader.evaluate((h, gap) => {
        const feed = h.closest('.feed')!;
        feed.scrollTop += h.getBoundingClientRect().top - feed.getBoundingClientRect().top - gap;
      }, gap);
      await a.page.waitForTimeout(200);
      const pinned = a.page.locator('.recipient.pinned');
      await pinned.filter({ hasText: 'alpha' }).waitFor({ timeout: 3000 });
      const p = await box(a.page, '.recipient.pinned');
      const h = await box(a.page, 'h2.recipient:has-text("beta")');
      assert.ok(p.bottom <= h.top + 0.5, `the pinned header (bottom ${p.bottom}) covers the next one (top ${h.top}) ${gap} px below the top`);
    }
  } finally {
    await a.context.close();
  }
});

test('the shortcuts dialog keeps the keyboard inside it, and Esc gives the focus back', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const { page } = a;
  try {
    await page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    await page.getByRole('article').first().waitFor({ timeout: 5000 });
    await page.getByRole('heading', { name: '#general', level: 1 }).click();
    // k selects (and focuses) a message: where the focus must come back to.
    await page.keyboard.press('k');
    await page.waitForFunction(() => document.activeElement?.tagName === 'ARTICLE');
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await dialog.waitFor();
    for (const key of ['Tab', 'Tab', 'Shift+Tab', 'Tab']) {
      await page.keyboard.press(key);
      assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), `focus left the dialog after ${key}`);
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.tagName === 'ARTICLE', undefined, { timeout: 2000 });
  } finally {
    await a.context.close();
  }
});
