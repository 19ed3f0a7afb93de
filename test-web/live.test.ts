// Live changes seen by another person (edit, reaction, deletion, move), a file upload, search,
// a hostile message, and recovery when the server restarts mid-session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { Page } from 'playwright-core';
import { clickNotification, hiddenRecordingNotifications, loggedIn, notificationsShown, testScene } from './harness.js';

const s = testScene();

const article = (page: Page, text: string) => page.getByRole('article').filter({ hasText: text });

test('edits, reactions, deletions and moves appear live for the other person', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const b = await loggedIn(s.browser, s.srv.url, s.bob);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/plans`);
    await b.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general`);
    await a.page.getByRole('textbox', { name: 'Message' }).fill('Meet at noon');
    await a.page.getByRole('button', { name: 'Send' }).click();
    const onBob = article(b.page, 'Meet at');
    await onBob.waitFor({ timeout: 5000 });

    // Alice edits her message: the same element on Bob's page shows the new text.
    const mine = article(a.page, 'Meet at');
    await mine.hover();
    await mine.getByRole('button', { name: 'Edit' }).click();
    await a.page.getByRole('textbox', { name: 'Edited text' }).fill('Meet at one');
    await a.page.getByRole('button', { name: 'Save' }).click();
    await onBob.filter({ hasText: 'Meet at one' }).waitFor({ timeout: 5000 });
    assert.equal(await onBob.count(), 1);

    // Bob reacts; Alice sees the emoji inside her message.
    await onBob.hover();
    await onBob.getByRole('button', { name: 'Add reaction' }).click();
    await b.page.getByRole('textbox', { name: 'Filter emoji' }).fill('tada');
    await b.page.getByRole('button', { name: 'tada', exact: true }).click();
    await mine.getByRole('button', { name: /tada/ }).waitFor({ timeout: 5000 });
    assert.match((await mine.textContent()) ?? '', /🎉/);

    // The owner moves the topic: Bob's channel view shows the new topic name.
    const msgId = Number(await onBob.getAttribute('data-message-id'));
    const moved = await s.srv.owner.api.patch(`/messages/${msgId}`, { topic: 'new plans', propagate_mode: 'change_all' });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    await b.page.getByRole('heading', { name: /new plans/ }).waitFor({ timeout: 5000 });

    // Alice deletes it from her page, confirming in the page (no browser confirm box, which an
    // automated browser dismisses unseen): gone from Bob's page.
    const hers = a.page.locator(`article[data-message-id="${msgId}"]`);
    await a.page.getByRole('heading', { name: /new plans/ }).first().click().catch(() => {});
    await hers.hover();
    await hers.getByRole('button', { name: 'Delete' }).click();
    const confirmBox = hers.getByRole('alertdialog', { name: 'Delete this message?' });
    await confirmBox.getByRole('button', { name: 'Cancel' }).click();
    await confirmBox.waitFor({ state: 'detached' });
    await hers.hover();
    await hers.getByRole('button', { name: 'Delete' }).click();
    await confirmBox.getByRole('button', { name: 'Delete' }).click();
    await onBob.waitFor({ state: 'detached', timeout: 5000 });
    await hers.waitFor({ state: 'detached', timeout: 5000 });
  } finally {
    await a.context.close();
    await b.context.close();
  }
});

test('a file is uploaded, sent and listed in the message; search shows only matches', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/files`);
    const dir = mkdtempSync(join(tmpdir(), 'confab-upload-'));
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'some notes');
    await a.page.locator('input[type=file]').setInputFiles(file);
    const box = a.page.getByRole('textbox', { name: 'Message' });
    await a.page.waitForFunction(() => /user_uploads/.test((document.querySelector('textarea[aria-label=Message]') as HTMLTextAreaElement | null)?.value ?? ''), undefined, { timeout: 5000 });
    await box.press('End');
    await box.pressSequentially(' the notes about zebras');
    await a.page.getByRole('button', { name: 'Send' }).click();
    const msg = article(a.page, 'zebras');
    await msg.getByRole('link', { name: 'notes.txt' }).waitFor({ timeout: 5000 });

    await a.page.getByRole('textbox', { name: 'Message' }).fill('nothing to see');
    await a.page.getByRole('button', { name: 'Send' }).click();
    await article(a.page, 'nothing to see').waitFor({ timeout: 5000 });

    await a.page.getByRole('searchbox', { name: 'Search' }).fill('zebras');
    await a.page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await a.page.getByRole('heading', { name: 'Search results' }).waitFor({ timeout: 5000 });
    await article(a.page, 'zebras').waitFor({ timeout: 5000 });
    assert.equal(await a.page.getByRole('article').count(), 1);
    assert.match(a.page.url(), /#narrow\/search\/zebras/);

    // Operators: only Alice's messages in the files topic.
    await a.page.getByRole('searchbox', { name: 'Search' }).fill('topic:files sender:' + s.alice.email);
    await a.page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await article(a.page, 'nothing to see').waitFor({ timeout: 5000 });
    assert.equal(await a.page.getByRole('article').count(), 2);
    // The back button returns to the search before.
    await a.page.goBack();
    await a.page.waitForFunction(() => document.querySelectorAll('article').length === 1, undefined, { timeout: 5000 });

    // A quoted phrase matches its words together and in order, not each word anywhere.
    await a.page.getByRole('searchbox', { name: 'Search' }).fill('"about zebras"');
    await a.page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await article(a.page, 'zebras').waitFor({ timeout: 5000 });
    await a.page.getByRole('searchbox', { name: 'Search' }).fill('"zebras about"');
    await a.page.getByRole('searchbox', { name: 'Search' }).press('Enter');
    await a.page.getByText('No messages match this search.').waitFor({ timeout: 5000 });
    assert.equal(await a.page.getByRole('article').count(), 0);
  } finally {
    await a.context.close();
  }
});

test('a hostile message runs no script', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const violations: string[] = [];
  a.page.on('dialog', (d) => {
    violations.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/hostile`);
    const hostile = [
      '<img src=x onerror="window.__pwned=1;alert(1)">',
      '[click me](javascript:window.__pwned=2)',
      '<script>window.__pwned=3</script>',
      '![x](javascript:alert(4))',
      '<a href="javascript:alert(5)">raw</a> <svg onload=alert(6)>',
    ].join('\n\n');
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'hostile', content: hostile });
    const msg = article(a.page, 'click me');
    await msg.waitFor({ timeout: 5000 });
    const link = msg.getByRole('link', { name: 'click me' });
    if (await link.count()) await link.click().catch(() => {});
    await a.page.waitForTimeout(500);
    const pwned = await a.page.evaluate('window.__pwned');
    assert.equal(pwned, undefined);
    assert.equal(await a.page.locator('.rendered script, .rendered [onerror], .rendered [onload]').count(), 0);
    assert.deepEqual(violations, []);
  } finally {
    await a.context.close();
  }
});

test('the server restarts mid-session: the page shows it is reconnecting and recovers by itself', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/restart`);
    await a.page.getByRole('textbox', { name: 'Message' }).waitFor();
    const restarting = s.srv.restart(2500);
    await a.page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor({ timeout: 8000 });
    await restarting;
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'restart', content: 'sent after the restart' });
    await article(a.page, 'sent after the restart').waitFor({ timeout: 15000 });
    await a.page.getByRole('status').filter({ hasText: 'Reconnecting' }).waitFor({ state: 'detached', timeout: 5000 });
    // And the page still sends.
    await a.page.getByRole('textbox', { name: 'Message' }).fill('still here');
    await a.page.getByRole('button', { name: 'Send' }).click();
    await article(a.page, 'still here').waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
  }
});

test('rich content: math with the KaTeX stylesheet loaded on demand, a spoiler that opens, emoji as characters', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const cspErrors: string[] = [];
  a.page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/rich`);
    await a.page.getByRole('textbox', { name: 'Message' }).waitFor();
    assert.equal(await a.page.locator('link[href*="katex-"]').count(), 0, 'KaTeX CSS is not part of the first view');
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'rich', content: 'Euler: $$e^{i\\pi} + 1 = 0$$ :tada:\n\n```spoiler Plot twist\nthe butler\n```' });
    const msg = article(a.page, 'Euler');
    await msg.locator('.katex').first().waitFor({ timeout: 5000 });
    await a.page.waitForFunction(() => [...document.styleSheets].some((s) => (s.href ?? '').includes('/static/katex-')), undefined, { timeout: 5000 });
    assert.match((await msg.textContent()) ?? '', /🎉/);
    const hidden = msg.getByText('the butler');
    assert.equal(await hidden.isVisible(), false);
    await msg.getByText('Plot twist').click();
    await hidden.waitFor({ state: 'visible', timeout: 2000 });
    assert.deepEqual(cspErrors, []);
  } finally {
    await a.context.close();
  }
});

test('desktop notifications while the page is hidden: DMs and mentions, channels as their settings say, none for muted topics; a click opens the conversation', async () => {
  // The page in the background (another tab in front), each notification recorded as it is shown.
  const a = await loggedIn(s.browser, s.srv.url, s.alice, undefined, hiddenRecordingNotifications(s.srv.url));
  try {
    await a.page.goto(`${s.srv.url}/#inbox`);
    await s.bob.api.post('/messages', { type: 'direct', to: [s.alice.api.userId], content: 'Are you there?' });
    await notificationsShown(a.page, 1);
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'quiet', content: 'Nothing for Alice here' });
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'quiet', content: '@**Alice Anders** a question' });
    await notificationsShown(a.page, 2);
    // The channel asks for notifications of its own; a muted topic still stays quiet.
    await s.alice.api.post('/users/me/subscriptions/properties', { subscription_data: JSON.stringify([{ stream_id: s.general, property: 'desktop_notifications', value: true }]) });
    await s.alice.api.post('/user_topics', { stream_id: s.general, topic: 'muted talk', visibility_policy: 1 });
    await a.page.waitForTimeout(500); // the two events reach the page
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'muted talk', content: 'In a muted topic' });
    await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'news', content: 'Channel news' });
    await notificationsShown(a.page, 3);
    await a.page.waitForTimeout(500);
    assert.deepEqual(await notificationsShown(a.page), [
      'Bob Brown (Direct message): Are you there?',
      'Bob Brown (#general > quiet): @Alice Anders a question',
      'Bob Brown (#general > news): Channel news',
    ]);
    // Clicking the last one opens its topic.
    await clickNotification(a.page, 2);
    await a.page.waitForFunction(() => location.hash.startsWith('#narrow/channel/') && location.hash.includes('/topic/news'), undefined, { timeout: 5000 });
    await article(a.page, 'Channel news').waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
  }
});
