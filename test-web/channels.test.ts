// The channel browser (#channels/all, Zulip's "All channels"): from the sidebar to the list of the
// channels one can see, narrowed by name, joined and left with each row's button, with the sidebar
// following; on the desktop and on a phone, under the page's Content-Security-Policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testScene, loggedIn, makeChannel, screenshot } from './harness.js';

let design = 0;
const s = testScene(async () => {
  const made = await s.srv.owner.api.post('/users/me/subscriptions', {
    subscriptions: [{ name: 'design', description: 'Colours and type' }],
    principals: [s.bob.email],
  });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  design = (await s.bob.api.get('/get_stream_id', { stream: 'design' })).body.stream_id;
  await makeChannel(s.srv.owner, 'random', [s.srv.owner]);
});

async function subscribedNames(api: typeof s.alice.api): Promise<string[]> {
  const res = await api.get('/users/me/subscriptions');
  return (res.body.subscriptions as Array<{ name: string }>).map((x) => x.name).sort();
}

test('a member browses the channels, filters them, joins one and leaves one; the sidebar follows', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const blocked: string[] = [];
  a.page.on('console', (m) => m.text().includes('Content Security Policy') && blocked.push(m.text()));
  try {
    const sidebar = a.page.getByRole('navigation', { name: 'Conversations' });
    await sidebar.getByRole('link', { name: 'Browse channels' }).click();
    await a.page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor({ timeout: 5000 });
    assert.match(a.page.url(), /#channels\/all$/);
    const list = a.page.getByRole('main').getByRole('listitem');
    await list.filter({ hasText: 'design' }).waitFor({ timeout: 5000 });
    assert.deepEqual((await list.allTextContents()).map((t) => t.split(/\s/)[1]), ['design', 'general', 'random']);
    const row = list.filter({ hasText: 'design' });
    assert.match((await row.textContent()) ?? '', /1 subscriber(?!s).*Colours and type/);
    // The filter box has the focus as the view opens (on the desktop) and narrows the list by name.
    const filter = a.page.getByRole('searchbox', { name: 'Filter channels' });
    assert.equal(await filter.evaluate((el) => el === document.activeElement), true);
    await a.page.keyboard.type('DES');
    await a.page.waitForFunction(() => document.querySelectorAll('main li').length === 1);
    await filter.fill('nothing like it');
    await a.page.getByText('No channels match this filter.').waitFor({ timeout: 5000 });
    await filter.fill('des');

    // Joining: the notice, the sidebar, the count; the button (keeping the focus) now leaves.
    const join = a.page.getByRole('button', { name: 'Subscribe to design' });
    await join.focus();
    await a.page.keyboard.press('Enter');
    await a.page.getByRole('status').filter({ hasText: 'Subscribed to #design.' }).waitFor({ timeout: 5000 });
    await sidebar.getByRole('link', { name: /# design/ }).waitFor({ timeout: 5000 });
    const leaveDesign = a.page.getByRole('button', { name: 'Unsubscribe from design' });
    await leaveDesign.waitFor({ timeout: 5000 });
    assert.equal(await leaveDesign.evaluate((el) => el === document.activeElement), true);
    await row.filter({ hasText: '2 subscribers' }).waitFor({ timeout: 5000 });
    assert.deepEqual(await subscribedNames(s.alice.api), ['design', 'general']);
    // Someone else joining moves the count live.
    await s.srv.owner.api.post('/users/me/subscriptions', { subscriptions: [{ name: 'design' }] });
    await row.filter({ hasText: '3 subscribers' }).waitFor({ timeout: 5000 });

    // Leaving #general: the notice, and it leaves the sidebar.
    await filter.fill('');
    const leave = a.page.getByRole('button', { name: 'Unsubscribe from general' });
    await leave.click();
    await a.page.getByRole('status').filter({ hasText: 'Unsubscribed from #general.' }).waitFor({ timeout: 5000 });
    await sidebar.getByRole('link', { name: /# general/ }).waitFor({ state: 'detached', timeout: 5000 });
    await a.page.getByRole('button', { name: 'Subscribe to general' }).waitFor({ timeout: 5000 });
    assert.deepEqual(await subscribedNames(s.alice.api), ['design']);

    // The channel's own view then offers Subscribe.
    await list.filter({ hasText: 'general' }).getByRole('link', { name: '# general' }).click();
    await a.page.getByRole('heading', { name: '#general', level: 1 }).waitFor({ timeout: 5000 });
    await a.page.getByRole('button', { name: 'Subscribe', exact: true }).waitFor({ timeout: 5000 });
    await screenshot(a.page, 'channels-left-general');
    await a.page.goBack();
    await a.page.getByRole('button', { name: 'Subscribe to general' }).waitFor({ timeout: 5000 });
    await screenshot(a.page, 'channels-light');
    assert.deepEqual(blocked, []);
  } finally {
    await a.context.close();
  }
});

test("the server's refusal is said; on a phone the list fits the screen and opens from the drawer", async () => {
  const b = await loggedIn(s.browser, s.srv.url, s.bob, { width: 390, height: 844 }, undefined, { hasTouch: true, isMobile: true });
  try {
    // A refusal (as the server words one, in Zulip's envelope) is shown as it comes, and the
    // button stays as it was.
    await b.page.route('**/api/v1/users/me/subscriptions', (route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ result: 'error', msg: 'Not allowed to leave #design today.', code: 'BAD_REQUEST' }) })
        : route.continue(),
    );
    await b.page.getByRole('button', { name: 'Show conversations' }).click();
    await b.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: 'Browse channels' }).click();
    await b.page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor({ timeout: 5000 });
    assert.equal(await b.page.getByRole('button', { name: 'Show conversations' }).getAttribute('aria-expanded'), 'false');
    const button = b.page.getByRole('button', { name: 'Unsubscribe from design' });
    await button.waitFor({ timeout: 5000 });
    const box = (await button.boundingBox())!;
    assert.ok(box.x + box.width <= 390, `the button (${JSON.stringify(box)}) is on the screen`);
    assert.equal(await b.page.evaluate(() => document.documentElement.scrollWidth), 390);
    // No focus into the filter box on a touch screen: the keyboard would cover the list.
    assert.equal(await b.page.evaluate(() => document.activeElement?.tagName), 'BODY');
    await screenshot(b.page, 'channels-phone');
    await button.click();
    await b.page.getByRole('status').filter({ hasText: 'Not allowed to leave #design today.' }).waitFor({ timeout: 5000 });
    assert.equal(await button.textContent(), 'Unsubscribe');
  } finally {
    await b.context.close();
  }
});

test("Zulip's tabs: #channels opens the subscribed ones, Not subscribed the others; a channel joined moves across", async () => {
  const b = await loggedIn(s.browser, s.srv.url, s.bob);
  try {
    await b.page.goto(`${s.srv.url}/#channels`);
    await b.page.getByRole('heading', { name: 'Subscribed', level: 1 }).waitFor({ timeout: 5000 });
    const tabs = b.page.getByRole('navigation', { name: 'Channel lists' });
    assert.equal(await tabs.getByRole('link', { name: 'Subscribed', exact: true }).getAttribute('aria-current'), 'page');
    const names = async () => (await b.page.getByRole('main').getByRole('listitem').allTextContents()).map((t) => t.trim().split(/\s/)[1]);
    await b.page.getByRole('main').getByRole('listitem').first().waitFor({ timeout: 5000 });
    assert.deepEqual(await names(), ['design', 'general']);
    // A subscribed channel's row leads to its settings.
    await b.page.getByRole('link', { name: 'Settings for design' }).waitFor({ timeout: 5000 });

    await tabs.getByRole('link', { name: 'Not subscribed' }).click();
    await b.page.getByRole('heading', { name: 'Not subscribed', level: 1 }).waitFor({ timeout: 5000 });
    assert.match(b.page.url(), /#channels\/notsubscribed$/);
    assert.deepEqual(await names(), ['random']);
    await b.page.getByRole('button', { name: 'Subscribe to random' }).click();
    await b.page.getByText('You are subscribed to every channel.').waitFor({ timeout: 5000 });

    await tabs.getByRole('link', { name: 'Subscribed', exact: true }).click();
    await b.page.getByRole('heading', { name: 'Subscribed', level: 1 }).waitFor({ timeout: 5000 });
    await b.page.getByRole('button', { name: 'Unsubscribe from random' }).waitFor({ timeout: 5000 });
    assert.deepEqual(await names(), ['design', 'general', 'random']);
    await tabs.getByRole('link', { name: 'All channels' }).click();
    await b.page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor({ timeout: 5000 });
    await screenshot(b.page, 'channels-tabs');
  } finally {
    await b.context.close();
  }
});
