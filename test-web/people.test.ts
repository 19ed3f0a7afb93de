// What a person trips over while using the client: someone's details (the card a message's sender
// name opens, and the ways on from it), and what search results say about themselves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { closeScene, openScene, loggedIn, type Person, type WebServer } from './harness.js';

let srv: WebServer;
let browser: Browser;
let alice: Person;
let bob: Person;
let general: number;

before(async () => {
  ({ srv, browser, alice, bob, general } = await openScene());
});
after(() => closeScene({ srv, browser }));

test("a sender's name opens their card: email, role, a direct message and the messages they sent", async () => {
  await bob.api.post('/messages', { type: 'stream', to: general, topic: 'plants', content: 'The ferns need water' });
  await bob.api.post('/messages', { type: 'stream', to: general, topic: 'other', content: 'Bob again elsewhere' });
  const a = await loggedIn(browser, srv.url, alice);
  try {
    await a.page.goto(`${srv.url}/#narrow/channel/${general}-general/topic/plants`);
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
  await bob.api.post('/messages', { type: 'stream', to: general, topic: 'plants', content: 'Cacti want little water' });
  const a = await loggedIn(browser, srv.url, alice);
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
    await a.page.goto(`${srv.url}/#narrow/channel/${general}-general/topic/plants`);
    await a.page.getByText('The start of this conversation.').waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
  }
});
