// Settings that survive a reload, administration (a channel created, a person invited), the phone
// width, accessibility (axe-core: no serious or critical violation on the main views), and the
// screenshots of the main views in light and dark, desktop and phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axe, testScene, loggedIn, makeChannel, screenshot, type Person } from './harness.js';

const s = testScene(async () => {
  await makeChannel(s.srv.owner, 'design', [s.srv.owner, s.alice, s.bob]);
  const say = (p: Person, topic: string, content: string) => p.api.post('/messages', { type: 'stream', to: s.general, topic, content });
  await say(s.alice, 'lunch', 'Who is up for **pizza** at noon?');
  await say(s.bob, 'lunch', 'Count me in. Here is the menu:\n```python\ndef order(n):\n    return n * "pizza"\n```');
  await say(s.srv.owner, 'lunch', '> quoting the menu\n\nSounds good @**Alice Anders**');
  await say(s.alice, 'release', 'The release notes are ready for review.');
  await s.bob.api.post('/messages', { type: 'direct', to: [s.alice.api.userId], content: 'Can you look at my draft?' });
});

test('a display setting survives a reload; Enter sends once the setting says so', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.getByRole('link', { name: 'Settings' }).click();
    await a.page.getByRole('link', { name: 'Display' }).click();
    await a.page.getByRole('radio', { name: 'Dark' }).check();
    await a.page.getByRole('checkbox', { name: 'Enter sends the message' }).check();
    await a.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await a.page.waitForTimeout(300);
    await a.page.reload();
    await a.page.getByRole('radio', { name: 'Dark' }).waitFor();
    assert.equal(await a.page.getByRole('radio', { name: 'Dark' }).isChecked(), true);
    assert.equal(await a.page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/lunch`);
    await a.page.getByRole('textbox', { name: 'Message' }).fill('Sent with Enter');
    await a.page.getByRole('textbox', { name: 'Message' }).press('Enter');
    await a.page.getByRole('article').filter({ hasText: 'Sent with Enter' }).waitFor({ timeout: 5000 });
    await screenshot(a.page, 'chat-dark-desktop');
  } finally {
    await a.context.close();
  }
});

test('an administrator creates a channel and invites a person', async () => {
  const o = await loggedIn(s.browser, s.srv.url, s.srv.owner);
  try {
    await o.page.getByRole('link', { name: 'Administration' }).click();
    await o.page.getByRole('link', { name: 'Channels', exact: true }).click();
    await o.page.getByLabel('Channel name').fill('announcements');
    await o.page.getByLabel('Description').fill('News for everyone');
    await o.page.getByRole('button', { name: 'Create channel' }).click();
    await o.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /announcements/ }).waitFor({ timeout: 5000 });

    await o.page.getByRole('link', { name: 'Users' }).click();
    await o.page.getByLabel('Emails to invite').fill('newcomer@example.com');
    await o.page.getByRole('button', { name: 'Invite', exact: true }).click();
    await o.page.getByRole('status').filter({ hasText: 'Invitations sent' }).waitFor({ timeout: 5000 });
    const invites = await s.srv.owner.api.get('/invites');
    assert.ok(invites.body.invites.some((i: { email: string }) => i.email === 'newcomer@example.com'));
    await screenshot(o.page, 'admin-light-desktop');
  } finally {
    await o.context.close();
  }
});

test('at 360 px a phone shows the feed, opens the conversations menu and sends', async () => {
  const b = await loggedIn(s.browser, s.srv.url, s.bob, { width: 360, height: 740 });
  try {
    await b.page.getByRole('button', { name: 'Show conversations' }).click();
    await b.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /general/ }).click();
    await b.page.getByRole('article').filter({ hasText: 'pizza' }).first().waitFor({ timeout: 5000 });
    await b.page.getByRole('button', { name: 'New topic' }).click();
    await b.page.getByRole('textbox', { name: 'Topic' }).fill('from my phone');
    await b.page.getByRole('textbox', { name: 'Message' }).fill('Typed on a small screen');
    await b.page.getByRole('button', { name: 'Send' }).click();
    await b.page.getByRole('article').filter({ hasText: 'Typed on a small screen' }).waitFor({ timeout: 5000 });
    const overflow = await b.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `page wider than the screen by ${overflow}px`);
    await screenshot(b.page, 'chat-light-phone');
    await b.page.getByRole('button', { name: 'Show conversations' }).click();
    await b.page.waitForTimeout(300);
    await screenshot(b.page, 'sidebar-light-phone');
  } finally {
    await b.context.close();
  }
});

test('no serious or critical axe-core violation on the login page, a channel, direct messages and settings', async () => {
  const context = await s.browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  try {
    await page.goto(s.srv.url);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    assert.deepEqual(await axe(page), [], 'login page');
    await page.getByLabel('Email').fill(s.bob.email);
    await page.getByLabel('Password').fill(s.bob.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('searchbox', { name: 'Search' }).waitFor();
    await page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/lunch`);
    await page.getByRole('article').first().waitFor();
    assert.deepEqual(await axe(page), [], 'channel view');
    await screenshot(page, 'chat-light-desktop');
    await page.goto(`${s.srv.url}/#narrow/dm/${s.alice.api.userId}-Alice-Anders`);
    await page.getByRole('article').first().waitFor();
    assert.deepEqual(await axe(page), [], 'direct messages');
    await page.goto(`${s.srv.url}/#settings/display`);
    await page.getByRole('radio', { name: 'Dark' }).waitFor();
    assert.deepEqual(await axe(page), [], 'settings');
    await page.getByRole('radio', { name: 'Dark' }).check();
    await page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/lunch`);
    await page.getByRole('article').first().waitFor();
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    assert.deepEqual(await axe(page), [], 'channel view, dark');
    await page.setViewportSize({ width: 360, height: 740 });
    await page.waitForTimeout(400);
    await screenshot(page, 'chat-dark-phone');
    // The "Saved" notice of the theme change covers no control on the phone's screen.
    const covered = await page.evaluate(() => {
      const toast = document.querySelector('.toast')?.getBoundingClientRect();
      if (!toast) return null;
      return [...document.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href]')]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.width > 0 && r.height > 0 && r.left < toast.right && r.right > toast.left && r.top < toast.bottom && r.bottom > toast.top;
        })
        .map((el) => el.getAttribute('aria-label') ?? el.textContent?.trim() ?? el.tagName);
    });
    assert.notEqual(covered, null, 'the Saved notice still shows');
    assert.deepEqual(covered, [], 'controls under the Saved notice');
  } finally {
    await context.close();
  }
});

test('the address without a view opens the home view chosen in settings (web_home_view)', async () => {
  await s.bob.api.patch('/settings', { web_home_view: 'recent' });
  const b = await loggedIn(s.browser, s.srv.url, s.bob);
  try {
    await b.page.getByRole('heading', { name: 'Recent conversations', level: 1 }).waitFor({ timeout: 5000 });
    await b.page.getByRole('link', { name: 'Settings' }).click();
    await b.page.getByRole('link', { name: 'Display' }).click();
    await b.page.getByLabel('Home view').selectOption('all_messages');
    await b.page.getByText('Saved').waitFor({ timeout: 5000 });
    const state = await s.bob.api.post('/register', { fetch_event_types: JSON.stringify(['user_settings']) });
    assert.equal(state.body.user_settings.web_home_view, 'all_messages');
    await b.page.goto(`${s.srv.url}/`);
    await b.page.getByRole('heading', { name: 'Combined feed', level: 1 }).waitFor({ timeout: 5000 });
    await b.page.getByRole('article').filter({ hasText: 'Can you look at my draft?' }).waitFor({ timeout: 5000 });
    // A change made elsewhere (another client) applies to the next visit of the bare address.
    await s.bob.api.patch('/settings', { web_home_view: 'inbox' });
    await b.page.reload();
    await b.page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor({ timeout: 5000 });
  } finally {
    await b.context.close();
    await s.bob.api.patch('/settings', { web_home_view: 'inbox' });
  }
});

test('the sidebar marks muted channels and topics (also for screen readers) and resolved topics, live', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    const sidebar = a.page.getByRole('navigation', { name: 'Conversations' });
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    const topics = sidebar.getByRole('list', { name: 'Topics in general' });
    await topics.getByRole('link', { name: /^lunch/ }).waitFor({ timeout: 5000 });
    assert.equal(await topics.getByRole('link', { name: /muted/ }).count(), 0);

    await s.alice.api.post('/user_topics', { stream_id: s.general, topic: 'lunch', visibility_policy: 1 });
    await topics.getByRole('link', { name: /^lunch \(muted\)/ }).waitFor({ timeout: 5000 });
    assert.equal(await topics.getByRole('listitem').filter({ hasText: 'lunch' }).getAttribute('class'), 'muted');

    const design = (await s.alice.api.get('/get_stream_id', { stream: 'design' })).body.stream_id;
    await s.alice.api.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: design, property: 'is_muted', value: true }]) });
    await sidebar.getByRole('link', { name: /design \(muted\)/ }).waitFor({ timeout: 5000 });

    // Bob resolves the release topic: Alice's sidebar shows it marked, under its new name.
    const msgs = await s.bob.api.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: s.general }, { operator: 'topic', operand: 'release' }]) });
    const id = msgs.body.messages[0].id as number;
    assert.equal((await s.bob.api.patch(`/messages/${id}`, { topic: '✔ release', propagate_mode: 'change_all' })).status, 200);
    const resolved = topics.getByRole('link', { name: /^✔ release/ });
    await resolved.waitFor({ timeout: 5000 });
    assert.equal(await resolved.getAttribute('class'), 'resolved');
    assert.equal(await topics.getByRole('link', { name: /^release/ }).count(), 0);
  } finally {
    await a.context.close();
  }
});

test('code highlighting takes its dark colours on a dark system with the theme left on System, as with Dark', async () => {
  await s.srv.owner.api.patch('/settings', { color_scheme: 1 });
  const o = await loggedIn(s.browser, s.srv.url, s.srv.owner, undefined, undefined, { colorScheme: 'dark' });
  // Each token's colour and its contrast against the code block's background.
  const colours = () =>
    o.page.evaluate(() => {
      const rgb = (c: string) => (c.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
      const lum = (c: string) => {
        const [r, g, b] = rgb(c).map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const pre = document.querySelector('.codehilite pre') ?? document.querySelector('.codehilite')!;
      const bg = getComputedStyle(pre).backgroundColor;
      const out: Record<string, { color: string; contrast: number }> = {};
      for (const cls of ['k', 'nf', 's2', 'o']) {
        const el = document.querySelector(`.codehilite .${cls}`);
        if (!el) continue;
        const color = getComputedStyle(el).color;
        const [hi, lo] = [lum(color), lum(bg)].sort((x, y) => y - x);
        out[cls] = { color, contrast: Math.round(((hi! + 0.05) / (lo! + 0.05)) * 10) / 10 };
      }
      return out;
    });
  try {
    await o.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/lunch`);
    await o.page.locator('.codehilite .k').first().waitFor({ timeout: 5000 });
    assert.equal(await o.page.evaluate(() => document.documentElement.dataset.theme), 'auto');
    const system = await colours();
    assert.ok(system.k && system.s2, JSON.stringify(system));
    for (const [cls, c] of Object.entries(system)) assert.ok(c.contrast >= 4.5, `.${cls} ${c.color}: contrast ${c.contrast} on the dark code block`);
    // The explicit Dark setting gives the same colours.
    await s.srv.owner.api.patch('/settings', { color_scheme: 2 });
    await o.page.waitForFunction(() => document.documentElement.dataset.theme === 'dark', undefined, { timeout: 5000 });
    assert.deepEqual(await colours(), system);
  } finally {
    await o.context.close();
    await s.srv.owner.api.patch('/settings', { color_scheme: 1 });
  }
});
