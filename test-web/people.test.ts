// What a person trips over while using the client: someone's details (the card a message's sender
// name opens, and the ways on from it), and what search results say about themselves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testScene, loggedIn } from './harness.js';

const s = testScene();

test("a sender's name opens their card: email, role, a direct message and the messages they sent", async () => {
  await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'plants', content: 'The ferns need water' });
  await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'other', content: 'Bob again elsewhere' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/plants`);
    const msg = a.page.getByRole('article').filter({ hasText: 'The ferns need water' });
    await msg.waitFor({ timeout: 5000 });
    const name = msg.getByRole('button', { name: 'Bob Brown' });
    await name.click();
    const card = a.page.getByRole('dialog', { name: 'Bob Brown' });
    await card.waitFor({ timeout: 5000 });
    assert.match((await card.textContent()) ?? '', /person\d+@example\.com/);
    assert.match((await card.textContent()) ?? '', /Member/);
    // Modal: Tab goes round its own controls; Esc closes it and the focus is back on the name.
    for (let i = 0; i < 4; i++) {
      await a.page.keyboard.press('Tab');
      assert.equal(await card.evaluate((el) => el.contains(document.activeElement)), true);
    }
    await a.page.keyboard.press('Escape');
    await card.waitFor({ state: 'detached', timeout: 5000 });
    assert.equal(await name.evaluate((el) => el === document.activeElement), true);

    // From the card to the messages he sent (in any topic)…
    await name.click();
    await card.getByRole('link', { name: 'View messages sent' }).click();
    await card.waitFor({ state: 'detached', timeout: 5000 });
    await a.page.getByRole('heading', { name: 'Messages sent by Bob Brown', level: 1 }).waitFor({ timeout: 5000 });
    await a.page.getByRole('article').filter({ hasText: 'Bob again elsewhere' }).waitFor({ timeout: 5000 });
    assert.equal(await a.page.getByRole('article').filter({ hasText: 'The ferns need water' }).count(), 1);
    assert.equal(await a.page.getByRole('article').filter({ hasText: 'Alice' }).count(), 0);

    // From the keyboard: u on the selected message opens its sender's card (as in Zulip)…
    await a.page.getByRole('article').filter({ hasText: 'Bob again elsewhere' }).click();
    await a.page.keyboard.press('u');
    await card.waitFor({ timeout: 5000 });
    // …and on from it to a direct message with him.
    await card.getByRole('link', { name: 'Send direct message' }).click();
    await a.page.getByRole('heading', { name: 'Direct messages with Bob Brown', level: 1 }).waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
  }
});

test('search results say they are results: none found, and no "start of this conversation"', async () => {
  await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'plants', content: 'Cacti want little water' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    const search = a.page.getByRole('searchbox', { name: 'Search' });
    await search.fill('cacti');
    await search.press('Enter');
    await a.page.getByRole('article').filter({ hasText: 'Cacti want little water' }).waitFor({ timeout: 5000 });
    await a.page.getByText('No older results.').waitFor({ timeout: 5000 });
    assert.equal(await a.page.getByText('The start of this conversation.').count(), 0);

    await search.fill('zeppelin');
    await search.press('Enter');
    await a.page.getByText('No messages match this search.').waitFor({ timeout: 5000 });
    assert.equal(await a.page.getByText('No messages here yet.').count(), 0);

    // A conversation still has its start.
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/plants`);
    await a.page.getByText('The start of this conversation.').waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
  }
});

test("the Inbox's counts sit centred on their rows, and 'Mark all as read' (asked first) empties it", async () => {
  await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'inbox one', content: 'First unread for Alice' });
  await s.bob.api.post('/messages', { type: 'private', to: JSON.stringify([s.alice.email]), content: 'A direct one' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#inbox`);
    const inbox = a.page.getByRole('region', { name: 'Inbox' });
    const row = inbox.getByRole('link', { name: /inbox one/ });
    await row.waitFor({ timeout: 5000 });
    // A count is a pill with its number in the middle, level with the row's name: stretched to the
    // row's height, its number sat at the pill's top.
    const m = await row.evaluate((a) => {
      const mid = (r: DOMRect) => r.top + r.height / 2;
      const text = (el: Element) => { const range = document.createRange(); range.selectNodeContents(el); return range.getBoundingClientRect(); };
      const count = a.querySelector('.count')!;
      return { pill: mid(count.getBoundingClientRect()), number: mid(text(count)), name: mid(text(a.querySelector('.name')!)) };
    });
    assert.ok(Math.abs(m.pill - m.number) <= 1.5, `the number in the middle of its pill (${JSON.stringify(m)})`);
    assert.ok(Math.abs(m.number - m.name) <= 2, `the number level with the name (${JSON.stringify(m)})`);

    // Cancel leaves everything unread and the focus on the button.
    const markAll = inbox.getByRole('button', { name: 'Mark all as read' });
    await markAll.click();
    const ask = a.page.getByRole('alertdialog', { name: 'Mark all messages as read?' });
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await ask.waitFor({ state: 'detached', timeout: 5000 });
    await a.page.waitForFunction(() => document.activeElement?.textContent === 'Mark all as read');
    assert.ok(await row.isVisible());

    await markAll.click();
    // An ordinary action, styled as Zulip's primary button: not as a dangerous one.
    assert.equal(await ask.getByRole('button', { name: 'Mark as read' }).getAttribute('class'), 'primary');
    await ask.getByRole('button', { name: 'Mark as read' }).click();
    await inbox.getByText('You have no unread messages.').waitFor({ timeout: 5000 });
    await a.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /^Inbox$/ }).waitFor({ timeout: 5000 });
    const left = await s.alice.api.get('/messages', { anchor: 'newest', num_before: 50, num_after: 0, narrow: JSON.stringify([{ operator: 'is', operand: 'unread' }]) });
    assert.equal(left.body.messages.length, 0);
  } finally {
    await a.context.close();
  }
});

test('search results mark the words found, and an edit shows its new text', async () => {
  const sent = await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'plants', content: 'The orchid blooms in spring' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    const search = a.page.getByRole('searchbox', { name: 'Search' });
    await search.fill('orchid');
    await search.press('Enter');
    const msg = a.page.getByRole('article').filter({ hasText: 'The orchid blooms in spring' });
    await msg.waitFor({ timeout: 5000 });
    assert.equal(await msg.locator('.rendered .highlight').textContent(), 'orchid');
    const colors = await msg.locator('.rendered .highlight').evaluate((el) => [getComputedStyle(el).backgroundColor, getComputedStyle(el.parentElement!).backgroundColor]);
    assert.notEqual(colors[0], colors[1], 'the word found stands out');
    // Edited meanwhile: the result shows the new text (the old highlighted copy is dropped).
    await s.bob.api.patch(`/messages/${sent.body.id}`, { content: 'The orchid blooms in summer' });
    await a.page.getByRole('article').filter({ hasText: 'The orchid blooms in summer' }).waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
  }
});

test('Send with nothing written says so and puts the cursor in the message box', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    await a.page.getByRole('heading', { name: '#general', level: 1 }).waitFor({ timeout: 5000 });
    await a.page.getByRole('button', { name: 'Send' }).click();
    await a.page.getByRole('alert').filter({ hasText: 'You have nothing to send!' }).waitFor({ timeout: 5000 });
    const box = a.page.getByRole('textbox', { name: 'Message' });
    assert.equal(await box.evaluate((el) => el === document.activeElement), true);
    // Writing something takes the complaint away.
    await box.pressSequentially('ok');
    await a.page.getByRole('alert').filter({ hasText: 'You have nothing to send!' }).waitFor({ state: 'detached', timeout: 5000 });
  } finally {
    await a.context.close();
  }
});

test('compose opened over Settings or the Inbox sits at the bottom of the page, as in a conversation', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    for (const hash of ['#settings/profile', '#inbox']) {
      await a.page.goto(`${s.srv.url}/${hash}`);
      await a.page.getByRole('heading', { level: 1 }).first().waitFor({ timeout: 5000 });
      await a.page.getByRole('button', { name: 'New direct message' }).click();
      const box = a.page.getByRole('textbox', { name: 'Message' });
      await box.waitFor({ timeout: 5000 });
      const gap = await a.page.evaluate(() => document.querySelector('#main')!.getBoundingClientRect().bottom - document.querySelector('.compose')!.getBoundingClientRect().bottom);
      assert.ok(Math.abs(gap) <= 1, `${hash}: compose ends ${gap}px above the page's bottom`);
      await a.page.keyboard.press('Escape');
      await a.page.keyboard.press('Escape');
    }
  } finally {
    await a.context.close();
  }
});
