// Keyboard use and Zulip's URL hashes: shortcuts (c, x, r, j/k, n, /, Esc, ?), a #narrow/…/near/
// link opening at its message, the back button walking the views, typeahead and preview in compose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testScene, loggedIn } from './harness.js';

const ids: number[] = [];

const s = testScene(async () => {
  for (let i = 0; i < 120; i++) {
    const r = await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: i < 100 ? 'history' : 'unread topic', content: `numbered message ${i}` });
    ids.push(r.body.id);
  }
  // Alice has read the history; the last 20 (another topic) stay unread.
  await s.alice.api.post('/messages/flags', { messages: ids.slice(0, 100), op: 'add', flag: 'read' });
});

test('shortcuts, near links and the back button', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const { page } = a;
  try {
    // A link to one message opens its topic with that message in view and selected.
    await page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/history/near/${ids[10]}`);
    const target = page.locator(`article[data-message-id="${ids[10]}"]`);
    await target.waitFor({ timeout: 5000 });
    assert.match((await target.getAttribute('class')) ?? '', /selected/);
    assert.ok(await target.isVisible());

    // j and k move the selection.
    await page.locator('body').click({ position: { x: 5, y: 5 } }).catch(() => {});
    await page.keyboard.press('j');
    await page.locator(`article[data-message-id="${ids[11]}"].selected`).waitFor({ timeout: 2000 });
    await page.keyboard.press('k');
    await page.keyboard.press('k');
    await page.locator(`article[data-message-id="${ids[9]}"].selected`).waitFor({ timeout: 2000 });

    // r replies to the selected message: compose on its topic, focus in the Message box.
    await page.keyboard.press('r');
    const box = page.getByRole('textbox', { name: 'Message' });
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Message');
    assert.equal(await page.getByRole('textbox', { name: 'Topic' }).inputValue(), 'history');
    // Esc leaves the box; ? shows the shortcuts; Esc closes them.
    await page.keyboard.press('Escape');
    await page.keyboard.press('?');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor({ state: 'detached' });

    // n goes to the next unread topic; reading it there clears its count.
    await page.keyboard.press('n');
    await page.getByRole('heading', { name: /unread topic/ }).first().waitFor({ timeout: 5000 });
    await page.getByRole('article').filter({ hasText: 'numbered message 100' }).waitFor({ timeout: 5000 });
    // The feed is virtualized: the last message is in the page once End brought it into view.
    await page.keyboard.press('End');
    await page.locator(`article[data-message-id="${ids[119]}"].selected`).waitFor({ timeout: 5000 });
    await page.waitForFunction(() => document.activeElement?.textContent?.includes('numbered message 119'), undefined, { timeout: 2000 });

    // The back button walks the views.
    await page.goBack();
    await page.getByRole('heading', { name: '#general › history' }).waitFor({ timeout: 5000 });

    // / focuses search; c opens a new topic (Topic focused, empty); x a direct message.
    await page.keyboard.press('/');
    await page.waitForFunction(() => document.activeElement?.id === 'search');
    await page.keyboard.press('Escape');
    await page.goto(`${s.srv.url}/#feed`);
    await page.getByRole('heading', { name: 'Combined feed' }).waitFor();
    await page.locator('body').click({ position: { x: 700, y: 5 } }).catch(() => {});
    await page.keyboard.press('Escape');
    await page.keyboard.press('c');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Topic');
    // The first Esc closes the topic suggestions, the second leaves the field.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape');
    await page.keyboard.press('x');
    await page.getByRole('combobox', { name: 'To' }).waitFor();

    // Typeahead: @-mention of Bob, then a preview rendered by the server.
    await page.getByRole('combobox', { name: 'To' }).fill('Bob');
    await page.keyboard.press('Enter');
    await box.fill('');
    await box.pressSequentially('hello @Bo');
    await page.getByRole('option', { name: /Bob Brown/ }).waitFor({ timeout: 5000 });
    await page.keyboard.press('Tab');
    assert.match(await box.inputValue(), /hello @\*\*Bob Brown\*\* $/);
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('region', { name: 'Preview' }).locator('.user-mention').waitFor({ timeout: 5000 });
    await page.getByRole('button', { name: 'Preview' }).click();
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByRole('article').filter({ hasText: 'hello @Bob Brown' }).waitFor({ timeout: 5000 });
  } catch (e) {
    await page.screenshot({ path: '/tmp/kb-fail.png' });
    throw e;
  } finally {
    await a.context.close();
  }
});

test('from the keyboard only: a message selected takes the focus, Tab reaches its actions, an emoji picked by name; Esc takes back a new topic', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const { page } = a;
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.tagName ?? '');
  try {
    // All read (the test before may have left some unread): the topic opens at its newest message.
    await s.alice.api.post('/mark_all_as_read');
    await page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/unread.20topic`);
    await page.getByRole('article').filter({ hasText: 'numbered message 119' }).waitFor({ timeout: 5000 });
    await page.getByRole('heading', { name: '#general › unread topic', level: 1 }).click();
    // k selects the last message, already on screen: it takes the focus, and Tab goes to its actions.
    await page.keyboard.press('k');
    await page.waitForFunction(() => document.activeElement?.textContent?.includes('numbered message 119'), undefined, { timeout: 2000 });
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'Add reaction');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Filter emoji', undefined, { timeout: 5000 });
    // The emoji named as typed, taken with Enter; the focus back on the message.
    await page.keyboard.type('heart');
    await page.keyboard.press('Enter');
    const last = page.getByRole('article').filter({ hasText: 'numbered message 119' });
    await last.getByRole('button', { name: /^heart 1$/ }).waitFor({ timeout: 5000 });
    assert.equal(await last.getByRole('button', { name: /^heart 1$/ }).textContent(), '❤ 1');
    await page.waitForFunction(() => document.activeElement?.textContent?.includes('numbered message 119'), undefined, { timeout: 2000 });

    // c starts a new topic; Esc (the suggestions, the field, then compose) with nothing written:
    // compose addresses the open topic again.
    await page.keyboard.press('c');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Topic');
    assert.equal(await page.getByRole('textbox', { name: 'Topic' }).inputValue(), '');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Escape');
    assert.equal(await page.getByRole('textbox', { name: 'Topic' }).inputValue(), 'unread topic');
    // With words written, Esc leaves them addressed where they were meant to go.
    await page.keyboard.press('c');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Topic');
    await page.keyboard.type('a fresh topic');
    // Enter in Topic goes on to the message, the topic kept as typed.
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Message', undefined, { timeout: 2000 });
    await page.keyboard.type('half a thought');
    await page.getByRole('textbox', { name: 'Message' }).press('Escape');
    await page.keyboard.press('Escape');
    assert.equal(await page.getByRole('textbox', { name: 'Topic' }).inputValue(), 'a fresh topic');
  } catch (e) {
    await page.screenshot({ path: '/tmp/kb-fail-2.png' });
    throw e;
  } finally {
    await a.context.close();
  }
});

test('Enter on the selected message replies to it; an edit saved with Ctrl+Enter, with Enter when Enter sends, cancelled with Esc', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const { page } = a;
  const focusedMessage = () => page.evaluate(() => document.activeElement?.getAttribute('data-message-id') ?? '');
  try {
    await s.alice.api.patch('/settings', { enter_sends: false });
    await s.alice.api.post('/mark_all_as_read');
    const ownId = (await s.alice.api.post('/messages', { type: 'stream', to: s.general, topic: 'edits', content: 'first draft' })).body.id as number;
    await page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    const mine = page.locator(`article[data-message-id="${ownId}"]`);
    await mine.waitFor({ timeout: 5000 });
    await page.getByRole('heading', { name: '#general', level: 1 }).click();

    // k selects the last message and focuses it; Enter replies to it, as r does.
    await page.keyboard.press('k');
    await page.waitForFunction((id) => document.activeElement?.getAttribute('data-message-id') === String(id), ownId, { timeout: 2000 });
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Message', undefined, { timeout: 2000 });
    assert.equal(await page.getByRole('textbox', { name: 'Topic' }).inputValue(), 'edits');
    await page.keyboard.press('Escape');

    const openEdit = async (text: string) => {
      await mine.hover();
      await mine.getByRole('button', { name: 'Edit', exact: true }).click();
      await page.waitForFunction((t) => {
        const el = document.activeElement as HTMLTextAreaElement | null;
        return el?.tagName === 'TEXTAREA' && el.id.startsWith('edit-') && !el.disabled && el.value === t;
      }, text, { timeout: 5000 });
      // Compose stays open beside the edit, its Topic and Message as they were.
      const compose = page.getByRole('region', { name: 'Compose' });
      assert.equal(await compose.getByRole('textbox', { name: /topic/i }).count(), 1);
      assert.equal(await compose.getByRole('textbox', { name: /message/i }).count(), 1);
    };
    const edited = page.getByRole('textbox', { name: 'Edited text' });

    // "Enter sends" off: Enter adds a line, Ctrl+Enter saves; the focus goes back to the message.
    await openEdit('first draft');
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('second line');
    assert.equal(await edited.inputValue(), 'first draft\nsecond line');
    await page.keyboard.press('Control+Enter');
    await edited.waitFor({ state: 'detached', timeout: 5000 });
    await mine.filter({ hasText: 'second line' }).waitFor({ timeout: 5000 });
    assert.equal(await focusedMessage(), String(ownId));

    // "Enter sends" on: Shift+Enter adds a line, Enter saves.
    await s.alice.api.patch('/settings', { enter_sends: true });
    await page.waitForTimeout(500); // the setting's event reaches the page
    await openEdit('first draft\nsecond line');
    await page.keyboard.press('Control+End');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('third line');
    await page.keyboard.press('Enter');
    await edited.waitFor({ state: 'detached', timeout: 5000 });
    await mine.filter({ hasText: 'third line' }).waitFor({ timeout: 5000 });

    // Esc cancels: nothing saved, compose still open, the focus back on the message.
    await openEdit('first draft\nsecond line\nthird line');
    await page.keyboard.type(' discarded');
    await page.keyboard.press('Escape');
    await edited.waitFor({ state: 'detached', timeout: 2000 });
    assert.equal(await focusedMessage(), String(ownId));
    assert.doesNotMatch((await mine.textContent()) ?? '', /discarded/);
    await page.getByRole('textbox', { name: 'Message' }).waitFor();

    // The topic typed key by key stays in its field (the text box does not take the focus back
    // at each key), and Enter there saves it.
    await openEdit('first draft\nsecond line\nthird line');
    // Named Topic, as everywhere else in the client and in Zulip (it said "Subject").
    const subject = mine.getByRole('textbox', { name: 'Topic' });
    await subject.focus();
    await subject.press('Control+a');
    await subject.pressSequentially('renamed edits');
    assert.equal(await subject.inputValue(), 'renamed edits');
    await subject.press('Enter');
    await edited.waitFor({ state: 'detached', timeout: 5000 });
    const after = await s.alice.api.get(`/messages/${ownId}`);
    assert.equal(after.body.message.subject, 'renamed edits');
  } catch (e) {
    await page.screenshot({ path: '/tmp/kb-fail-3.png' });
    throw e;
  } finally {
    await s.alice.api.patch('/settings', { enter_sends: false });
    await a.context.close();
  }
});
