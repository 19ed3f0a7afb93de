// Composing as a person does it from wherever they are: a new topic started from another topic, a
// direct message to someone never written to (picked by typing their full name), a message
// written from the inbox. What one sends is never counted unread for oneself, and one sees
// where it went.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChannel, testScene, loggedIn } from './harness.js';

const s = testScene(async () => {
  await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'lunch', content: 'Pizza at noon?' });
  const unread = await s.alice.api.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0 });
  await s.alice.api.post('/messages/flags', { messages: unread.body.messages.map((m: { id: number }) => m.id), op: 'add', flag: 'read' });
});

test('a new topic and a first direct message sent from other views: a notice links there, and nothing one sent is unread', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const { page } = a;
  try {
    // In the lunch topic, Alice starts a new topic: the lunch view does not show it, a notice does.
    await page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/lunch`);
    await page.getByRole('article').filter({ hasText: 'Pizza at noon?' }).waitFor({ timeout: 5000 });
    await page.getByRole('button', { name: 'New topic' }).click();
    await page.getByRole('textbox', { name: 'Topic' }).fill('offsite');
    await page.getByRole('textbox', { name: 'Message' }).fill('Where shall we go this year?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('status').filter({ hasText: 'Message sent to #general › offsite' }).waitFor({ timeout: 5000 });
    assert.equal(await page.getByRole('article').filter({ hasText: 'Where shall we go' }).count(), 0);
    await page.getByRole('link', { name: 'Go to conversation' }).click();
    await page.getByRole('heading', { name: '#general › offsite' }).waitFor({ timeout: 5000 });
    await page.getByRole('article').filter({ hasText: 'Where shall we go this year?' }).waitFor({ timeout: 5000 });
    assert.equal(await page.getByRole('status').filter({ hasText: 'Message sent' }).count(), 0, 'the notice goes with the view');

    // From the channel, x and Bob's full name typed: a first direct message to him.
    await page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    await page.getByRole('article').filter({ hasText: 'Pizza at noon?' }).waitFor({ timeout: 5000 });
    await page.getByRole('heading', { name: '#general' }).click();
    await page.keyboard.press('x');
    await page.getByRole('combobox', { name: 'To' }).fill('Bob Brown');
    await page.getByRole('option', { name: /Bob Brown/ }).waitFor({ timeout: 5000 });
    await page.keyboard.press('Enter');
    await page.getByRole('textbox', { name: 'Message' }).fill('Just between us: I booked the boat');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('status').filter({ hasText: 'Message sent to Bob Brown' }).waitFor({ timeout: 5000 });
    const sidebar = page.getByRole('navigation', { name: 'Conversations' });
    await sidebar.locator('.dms').getByRole('link', { name: /Bob Brown/ }).waitFor({ timeout: 5000 });
    // Now a conversation, Bob is listed once in the sidebar, not also under People.
    assert.equal(await sidebar.getByRole('link', { name: 'Bob Brown' }).count(), 1);

    // From the inbox (no feed to show it), c: the app opens the conversation written to.
    await page.getByRole('link', { name: /^Inbox/ }).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor({ timeout: 5000 });
    await page.keyboard.press('c');
    await page.getByRole('textbox', { name: 'Topic' }).fill('from the inbox');
    await page.getByRole('textbox', { name: 'Message' }).fill('Written while looking at the inbox');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('heading', { name: '#general › from the inbox' }).waitFor({ timeout: 5000 });
    await page.getByRole('article').filter({ hasText: 'Written while looking at the inbox' }).waitFor({ timeout: 5000 });

    // Nothing Alice sent counts as unread for her, neither now nor after a reload (the server's flags).
    const mine = await s.alice.api.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify([{ operator: 'sender', operand: s.alice.api.userId }]) });
    assert.equal(mine.body.messages.length, 3);
    for (const m of mine.body.messages) assert.ok(m.flags.includes('read'), `${m.content} is read for its sender`);
    await page.reload();
    await page.getByRole('heading', { name: '#general › from the inbox' }).waitFor({ timeout: 5000 });
    await sidebar.getByRole('link', { name: /Bob Brown/ }).first().waitFor({ timeout: 5000 });
    assert.equal(await sidebar.locator('.count').count(), 0, 'no unread count in the sidebar');
  } catch (e) {
    await page.screenshot({ path: '/tmp/compose-fail.png' });
    throw e;
  } finally {
    await a.context.close();
  }
});

test('an address typed in the search box or a link opens the conversation itself; a public channel one is not in takes a message; #recent_topics', async () => {
  const announcements = await makeChannel(s.srv.owner, 'announcements', [s.srv.owner]);
  await s.srv.owner.api.post('/messages', { type: 'stream', to: announcements, topic: 'news', content: 'The office moves in May' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const { page } = a;
  try {
    const search = page.getByRole('searchbox', { name: 'Search' });
    await search.fill(`dm:${s.bob.email}`);
    await search.press('Enter');
    await page.getByRole('heading', { name: 'Direct messages with Bob Brown', level: 1 }).waitFor({ timeout: 5000 });
    assert.equal(await page.getByRole('textbox', { name: 'Topic' }).count(), 0);
    await page.getByRole('textbox', { name: 'Message' }).fill('Found you through the search box');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('article').filter({ hasText: 'Found you through the search box' }).waitFor({ timeout: 5000 });

    await page.goto(`${s.srv.url}/#narrow/dm/${s.bob.email}`);
    await page.getByRole('heading', { name: 'Direct messages with Bob Brown', level: 1 }).waitFor({ timeout: 5000 });
    await page.getByRole('article').filter({ hasText: 'Found you through the search box' }).waitFor({ timeout: 5000 });
    // The same links opened as the page loads, before the organization's data has arrived.
    await page.reload();
    await page.getByRole('heading', { name: 'Direct messages with Bob Brown', level: 1 }).waitFor({ timeout: 5000 });
    assert.equal(await page.getByRole('textbox', { name: 'Message' }).getAttribute('placeholder'), 'Message Bob Brown');
    await page.goto('about:blank');
    await page.goto(`${s.srv.url}/#narrow/channel/general/topic/lunch`);
    await page.getByRole('heading', { name: '#general › lunch', level: 1 }).waitFor({ timeout: 5000 });
    await page.getByRole('article').filter({ hasText: 'Pizza at noon?' }).waitFor({ timeout: 5000 });
    assert.equal(await page.getByRole('textbox', { name: 'Topic' }).inputValue(), 'lunch');

    await search.fill(`sender:${s.bob.email}`);
    await search.press('Enter');
    await page.getByRole('article').filter({ hasText: 'Pizza at noon?' }).waitFor({ timeout: 5000 });
    assert.equal(await page.getByRole('article').filter({ hasNotText: 'Bob Brown' }).count(), 0, 'only messages Bob sent');

    await page.goto(`${s.srv.url}/#recent_topics`);
    await page.getByRole('heading', { name: 'Recent conversations', level: 1 }).waitFor({ timeout: 5000 });

    // A public channel Alice is not subscribed to: she reads it and can post there.
    await page.goto(`${s.srv.url}/#narrow/channel/${announcements}-announcements`);
    await page.getByRole('article').filter({ hasText: 'The office moves in May' }).waitFor({ timeout: 5000 });
    const channel = page.getByRole('combobox', { name: 'Channel' });
    assert.equal(await channel.evaluate((el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent), '#announcements');
    await page.getByRole('textbox', { name: 'Topic' }).fill('news');
    await page.getByRole('textbox', { name: 'Message' }).fill('Which floor?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('article').filter({ hasText: 'Which floor?' }).waitFor({ timeout: 5000 });
  } catch (e) {
    await page.screenshot({ path: '/tmp/compose-fail-2.png' });
    throw e;
  } finally {
    await a.context.close();
  }
});

test("a person's full name typed in To and sent without picking from the list reaches them; a name nobody has is refused", async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const { page } = a;
  try {
    await page.getByRole('button', { name: 'New direct message' }).click();
    const to = page.getByRole('combobox', { name: 'To' });
    await to.fill('Nobody Atall');
    await page.getByRole('textbox', { name: 'Message' }).fill('Is anyone there?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('alert').filter({ hasText: 'Nobody Atall' }).waitFor({ timeout: 5000 });

    await to.fill('bob brown');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('button', { name: 'Remove Bob Brown' }).waitFor({ timeout: 5000 });
    await page.getByRole('link', { name: /Bob Brown/ }).first().click();
    await page.getByRole('article').filter({ hasText: 'Is anyone there?' }).waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
  }
});
