// What a third walk through the client as a person found: the edit form shown with the
// message's toolbar still beside it, "/me" messages folded into a sender's run with their "/me"
// showing, a sender's view whose title a phone cut to "Messages sent by …", and channel links
// whose address names the channel by id alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loggedIn, makeChannel, screenshot, testScene } from './harness.js';

const s = testScene();

test("the edit form replaces the message's toolbar while it is open", async () => {
  const sent = await s.alice.api.post('/messages', { type: 'stream', to: s.general, topic: 'editing', content: 'words to change' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/editing`);
    // By its id: while edited, its text is in the form's box, which no text filter sees.
    const msg = a.page.locator(`article[data-message-id="${sent.body.id}"]`);
    await msg.hover();
    await msg.getByRole('button', { name: 'Edit' }).click();
    const box = msg.getByRole('textbox', { name: 'Edited text' });
    await a.page.waitForFunction(() => (document.querySelector('textarea[id^="edit-"]') as HTMLTextAreaElement | null)?.value === 'words to change');
    // Pointed at and selected, the message being edited offers only the form's own buttons.
    await box.hover();
    const buttons = () => msg.getByRole('button').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? el.textContent?.trim()));
    assert.deepEqual(await buttons(), ['Alice Anders', 'Save', 'Cancel']);
    await screenshot(a.page, 'walk3-edit');
    // Cancelled, the toolbar is back for the message pointed at.
    await msg.getByRole('button', { name: 'Cancel' }).click();
    await msg.hover();
    await msg.getByRole('button', { name: 'Edit' }).waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
  }
});

test('a "/me" message shows its sender\'s name before its text, and the next message names its sender again', async () => {
  const say = (content: string) => s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'status', content });
  await say('first of the run');
  await say('/me waves at everyone');
  await say('after the wave');
  await say('and one more');
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/status`);
    const msg = (text: string) => a.page.getByRole('article').filter({ hasText: text });
    await msg('and one more').waitFor({ timeout: 5000 });
    const nameShown = (text: string) => msg(text).evaluate((el) => el.querySelector('.sender')!.getBoundingClientRect().width > 2);
    // As Zulip's message list: the status reads "Bob Brown waves at everyone" on one line.
    const wave = msg('waves at everyone');
    assert.equal(await nameShown('waves at everyone'), true);
    assert.match((await wave.locator('.meta').innerText()).replace(/\s+/g, ' '), /^Bob Brown waves at everyone ?\d/);
    assert.equal(((await wave.textContent()) ?? '').includes('/me'), false);
    const [name, text] = await Promise.all([wave.locator('.sender').boundingBox(), wave.getByText('waves at everyone').boundingBox()]);
    assert.ok(name && text && Math.abs(name.y - text.y) < 6 && text.x > name.x, `the text follows the name on its line (${JSON.stringify([name, text])})`);
    // The message after a status names its sender; the one after that continues the run.
    assert.equal(await nameShown('after the wave'), true);
    assert.equal(await nameShown('and one more'), false);
    assert.equal(await nameShown('first of the run'), true);
    await screenshot(a.page, 'walk3-me-message');
  } finally {
    await a.context.close();
  }
});

test("on a phone a sender's view has its title in two lines at most, the whole of it in its tooltip and on a tap", async () => {
  const carl = await s.srv.makePerson('Carlotta Bartholomew-Fitzgerald Montgomery');
  const channel = await makeChannel(s.srv.owner, 'carl', [s.srv.owner, carl, s.alice]);
  const sent = await carl.api.post('/messages', { type: 'stream', to: channel, topic: 'hi', content: 'hello from Carlotta' });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 390, height: 844 }, undefined, { hasTouch: true, isMobile: true });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/sender/${carl.api.userId}-Carlotta`);
    const full = 'Messages sent by Carlotta Bartholomew-Fitzgerald Montgomery';
    const title = a.page.getByRole('heading', { name: full, level: 1 });
    await title.waitFor({ timeout: 5000 });
    await a.page.getByRole('article').filter({ hasText: 'hello from Carlotta' }).waitFor({ timeout: 5000 });
    assert.equal(await title.getAttribute('title'), full);
    // More of it shows than "Messages sent by …": the bar's button keeps to a short label.
    const shown = () => title.evaluate((el) => ({ cut: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1, lines: Math.round(el.clientHeight / parseFloat(getComputedStyle(el).lineHeight)), width: el.getBoundingClientRect().width }));
    const before = await shown();
    assert.ok(before.lines <= 2 && before.width > 220, `two lines at most, most of the bar's width (${JSON.stringify(before)})`);
    const button = a.page.getByRole('main').getByRole('button', { name: 'New direct message' });
    assert.equal((await button.innerText()).trim(), 'Message');
    assert.equal(await a.page.evaluate(() => document.documentElement.scrollWidth), 390);
    await screenshot(a.page, 'walk3-phone-sender');
    await title.tap();
    assert.equal((await shown()).cut, false);
  } finally {
    await a.context.close();
  }
});

test('a channel link naming the channel by id alone opens the channel, as does #**channel**', async () => {
  const plans = await makeChannel(s.srv.owner, 'plans', [s.srv.owner]);
  await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'links', content: `see #**plans** or [by id](#narrow/channel/${plans}) or [old style](/#narrow/stream/${plans})` });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    for (const name of ['#plans', 'by id', 'old style']) {
      await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/links`);
      await a.page.getByRole('article').filter({ hasText: 'see' }).getByRole('link', { name, exact: true }).click();
      await a.page.getByRole('heading', { name: '#plans', level: 1 }).waitFor({ timeout: 5000 });
      await a.page.getByRole('article').filter({ hasText: 'channel created by' }).waitFor({ timeout: 5000 });
      assert.equal(await a.page.getByRole('textbox', { name: 'Message' }).getAttribute('placeholder'), 'Message #plans');
    }
    // Opened as the page loads, before the organization's channels are known.
    await a.page.goto(`${s.srv.url}/#narrow/channel/${plans}`);
    await a.page.reload();
    await a.page.getByRole('heading', { name: '#plans', level: 1 }).waitFor({ timeout: 5000 });
    assert.equal(await a.page.getByRole('searchbox', { name: 'Search' }).inputValue(), 'channel:plans');
  } finally {
    await a.context.close();
  }
});
