// Administration as an owner does it in the browser: roles, deactivating and reactivating a
// person, a channel renamed, its members changed and archived, the organization's name and a
// policy, a linkifier, a custom emoji and a bot; and a person's own settings (name, notifications,
// API key and zuliprc). Each step is checked through the API (the server holds the change) and,
// where another person would notice, in their own page, live.
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { loggedIn, makeChannel, testScene, type Person } from './harness.js';

let design: number;
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

const s = testScene(async () => {
  design = await makeChannel(s.srv.owner, 'design', [s.srv.owner, s.alice, s.bob]);
});

/** The owner's administration page at one tab. */
async function adminAt(page: Page, tab: string): Promise<void> {
  await page.getByRole('link', { name: 'Administration' }).click();
  await page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link', { name: tab, exact: true }).click();
}

/** Records the browser's own dialogs (confirm, alert, prompt): an automated browser dismisses them
 * unseen, so an action behind one silently does nothing; the page must ask in the page instead. */
function nativeDialogs(page: Page): string[] {
  const seen: string[] = [];
  page.on('dialog', (d) => {
    seen.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return seen;
}

/** The accessible name (or text) of the focused element. */
const focusedName = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.trim() ?? '');

/**
 * Clicks `trigger`, which asks in the page (an alertdialog named `question`, the focus inside it);
 * cancels once (with Cancel, or Esc) and checks nothing happened and the focus came back to the
 * trigger; then clicks it again and confirms with `confirmName`.
 */
async function confirmInPage(page: Page, trigger: string, question: string, confirmName: string, cancelWith: 'button' | 'Escape'): Promise<void> {
  const button = page.getByRole('button', { name: trigger, exact: true });
  const ask = page.getByRole('alertdialog', { name: question });
  await button.click();
  await ask.waitFor({ timeout: 5000 });
  assert.equal(await page.evaluate(() => !!document.activeElement?.closest('[role=alertdialog]')), true, 'the focus moves into the question');
  if (cancelWith === 'button') await ask.getByRole('button', { name: 'Cancel' }).click();
  else await page.keyboard.press('Escape');
  await ask.waitFor({ state: 'detached', timeout: 2000 });
  assert.equal(await focusedName(page), trigger, 'the focus comes back to the button that asked');
  await button.click();
  await ask.getByRole('button', { name: confirmName, exact: true }).click();
}

async function person(who: Person, id: number): Promise<{ role: number; is_active: boolean; full_name: string }> {
  const res = await who.api.get(`/users/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.user;
}

test('users: a role changed, a person deactivated and reactivated', async () => {
  const o = await loggedIn(s.browser, s.srv.url, s.srv.owner);
  const dialogs = nativeDialogs(o.page);
  try {
    await adminAt(o.page, 'Users');
    await o.page.getByLabel('Role of Bob Brown').selectOption({ label: 'Moderator' });
    await o.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
    assert.equal((await person(s.srv.owner, s.bob.api.userId)).role, 300);

    await confirmInPage(o.page, 'Deactivate Bob Brown', 'Deactivate Bob Brown?', 'Deactivate', 'button');
    await o.page.getByRole('button', { name: 'Reactivate Bob Brown' }).waitFor({ timeout: 5000 });
    assert.equal((await person(s.srv.owner, s.bob.api.userId)).is_active, false);
    assert.equal((await s.bob.api.get('/users/me')).status, 401, 'a deactivated account cannot use the API');
    // Bob, trying to log in meanwhile, is told why it fails.
    const context = await s.browser.newContext();
    const login = await context.newPage();
    await login.goto(s.srv.url);
    await login.getByLabel('Email').fill(s.bob.email);
    await login.getByLabel('Password').fill(s.bob.password);
    await login.getByRole('button', { name: 'Log in' }).click();
    await login.getByRole('alert').filter({ hasText: /deactivated|disabled/i }).waitFor({ timeout: 5000 });
    await context.close();

    await o.page.getByRole('button', { name: 'Reactivate Bob Brown' }).click();
    await o.page.getByRole('button', { name: 'Deactivate Bob Brown' }).waitFor({ timeout: 5000 });
    assert.equal((await person(s.srv.owner, s.bob.api.userId)).is_active, true);
    // An owner cannot change their own role or deactivate themselves from this table.
    assert.equal(await o.page.getByLabel('Role of Olivia Owner').isDisabled(), true);
    assert.deepEqual(dialogs, [], 'no browser dialog');
  } finally {
    await o.context.close();
  }
});

test('channels: renamed with a new description, a member removed and added, archived; a member sees it live', async () => {
  const o = await loggedIn(s.browser, s.srv.url, s.srv.owner);
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const dialogs = nativeDialogs(o.page);
  try {
    const aliceSidebar = a.page.getByRole('navigation', { name: 'Conversations' });
    await aliceSidebar.getByRole('link', { name: /design/ }).waitFor();

    await adminAt(o.page, 'Channels');
    await o.page.getByRole('button', { name: 'Edit design' }).click();
    await o.page.getByLabel('New name').fill('design-team');
    await o.page.getByLabel('Channel description').fill('Sketches and reviews');
    await o.page.getByRole('button', { name: 'Save channel' }).click();
    await aliceSidebar.getByRole('link', { name: /design-team/ }).waitFor({ timeout: 5000 });
    const info = await s.srv.owner.api.get(`/streams/${design}`);
    assert.equal(info.body.stream.name, 'design-team');
    assert.equal(info.body.stream.description, 'Sketches and reviews');

    const members = async () => ((await s.srv.owner.api.get(`/streams/${design}/members`)).body.subscribers as number[]).sort();
    await o.page.getByRole('button', { name: 'Remove Bob Brown' }).click();
    await o.page.getByRole('button', { name: 'Remove Bob Brown' }).waitFor({ state: 'detached', timeout: 5000 });
    assert.deepEqual(await members(), [s.srv.owner.api.userId, s.alice.api.userId].sort());
    await o.page.getByLabel('Add member (name or email)').fill('Bob Brown');
    await o.page.getByRole('button', { name: 'Add member' }).click();
    await o.page.getByRole('button', { name: 'Remove Bob Brown' }).waitFor({ timeout: 5000 });
    assert.deepEqual(await members(), [s.srv.owner.api.userId, s.alice.api.userId, s.bob.api.userId].sort());

    await confirmInPage(o.page, 'Archive design-team', 'Archive design-team?', 'Archive', 'Escape');
    await o.page.getByRole('button', { name: 'Archive design-team' }).waitFor({ state: 'detached', timeout: 5000 });
    await aliceSidebar.getByRole('link', { name: /design-team/ }).waitFor({ state: 'detached', timeout: 5000 });
    assert.equal((await s.srv.owner.api.get(`/streams/${design}`)).body.stream.is_archived, true);
    // #general was not touched.
    assert.equal((await s.srv.owner.api.get(`/streams/${s.general}`)).body.stream.is_archived, false);
    assert.deepEqual(dialogs, [], 'no browser dialog');
  } finally {
    await o.context.close();
    await a.context.close();
  }
});

test('organization: name, description and a policy; a linkifier that a message then uses', async () => {
  const o = await loggedIn(s.browser, s.srv.url, s.srv.owner);
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await adminAt(o.page, 'Organization');
    await o.page.getByLabel('Organization name').fill('Renamed Org');
    await o.page.getByLabel('Organization description').fill('Where the team talks');
    await o.page.getByRole('button', { name: 'Save organization' }).click();
    // Alice's page follows the rename live (the title carries the organization's name).
    await a.page.waitForFunction(() => document.title.includes('Renamed Org'), undefined, { timeout: 5000 });

    const editing = o.page.getByRole('checkbox', { name: 'People may edit their messages' });
    assert.equal(await editing.isChecked(), true);
    await editing.uncheck();
    await o.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
    const state = await s.srv.owner.api.post('/register', { fetch_event_types: JSON.stringify(['realm']) });
    assert.equal(state.body.realm_name, 'Renamed Org');
    assert.equal(state.body.realm_description.includes('Where the team talks'), true);
    assert.equal(state.body.realm_allow_message_editing, false);

    await o.page.getByLabel('Pattern').fill('#(?P<id>[0-9]+)');
    await o.page.getByLabel('URL template').fill('https://tracker.example.com/issues/{id}');
    await o.page.getByRole('button', { name: 'Add linkifier' }).click();
    await o.page.getByRole('button', { name: 'Remove linkifier #(?P<id>[0-9]+)' }).waitFor({ timeout: 5000 });
    await s.alice.api.post('/messages', { type: 'stream', to: s.general, topic: 'bugs', content: 'This is #42 again' });
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/bugs`);
    const link = a.page.getByRole('article').filter({ hasText: 'This is' }).getByRole('link', { name: '#42' });
    await link.waitFor({ timeout: 5000 });
    assert.equal(await link.getAttribute('href'), 'https://tracker.example.com/issues/42');
  } finally {
    await o.context.close();
    await a.context.close();
  }
});

test('custom emoji added and removed; a bot created, its key shown, then deactivated; the system bots not listed', async () => {
  const o = await loggedIn(s.browser, s.srv.url, s.srv.owner);
  const dialogs = nativeDialogs(o.page);
  try {
    await adminAt(o.page, 'Custom emoji');
    await o.page.getByLabel('Emoji name').fill('shipit');
    await o.page.getByLabel('Image').setInputFiles({ name: 'shipit.png', mimeType: 'image/png', buffer: PNG });
    await o.page.getByRole('button', { name: 'Add emoji' }).click();
    await o.page.getByRole('button', { name: 'Remove :shipit:' }).waitFor({ timeout: 5000 });
    const emoji = Object.values((await s.srv.owner.api.get('/realm/emoji')).body.emoji as Record<string, { name: string; deactivated: boolean }>);
    assert.ok(emoji.some((e) => e.name === 'shipit' && !e.deactivated));
    await o.page.getByRole('button', { name: 'Remove :shipit:' }).click();
    await o.page.getByRole('button', { name: 'Remove :shipit:' }).waitFor({ state: 'detached', timeout: 5000 });

    await adminAt(o.page, 'Bots');
    await o.page.getByLabel('Bot name').fill('Build Bot');
    await o.page.getByLabel('Bot email prefix').fill('build');
    await o.page.getByRole('button', { name: 'Create bot' }).click();
    const key = o.page.locator('code.key').filter({ hasText: 'API key:' });
    await key.waitFor({ timeout: 5000 });
    const apiKey = (await key.textContent())!.replace('API key:', '').trim();
    const state = await s.srv.owner.api.post('/register', { fetch_event_types: JSON.stringify(['realm_bot']) });
    const bots = state.body.realm_bots as Array<{ full_name: string; api_key: string; user_id: number }>;
    const bot = bots.find((b) => b.full_name === 'Build Bot');
    assert.ok(bot, 'the bot exists');
    assert.equal(bot.api_key, apiKey, 'the key shown is the bot\'s');
    // The system bots every organization shares (Notification Bot, Welcome Bot, ...) are not the
    // organization's to deactivate: only its own bots are listed, as in Zulip.
    const system = (await s.srv.owner.api.post('/register', { fetch_event_types: JSON.stringify(['realm_user']) })).body.cross_realm_bots as Array<{ full_name: string; email: string }>;
    assert.ok(system.length > 0, 'the server has system bots');
    await o.page.getByRole('button', { name: 'Deactivate Build Bot' }).waitFor({ timeout: 5000 });
    for (const b of system) {
      assert.equal(await o.page.getByRole('button', { name: `Deactivate ${b.full_name}` }).count(), 0, `${b.full_name} listed`);
      assert.equal(await o.page.getByRole('main').getByText(b.email).count(), 0, `${b.email} listed`);
    }
    await confirmInPage(o.page, 'Deactivate Build Bot', 'Deactivate Build Bot?', 'Deactivate', 'button');
    await o.page.getByRole('button', { name: 'Deactivate Build Bot' }).waitFor({ state: 'detached', timeout: 5000 });
    assert.equal((await person(s.srv.owner, bot.user_id)).is_active, false);
    assert.deepEqual(dialogs, [], 'no browser dialog');
  } finally {
    await o.context.close();
  }
});

test('an unknown administration or settings tab in the address shows the first tab', async () => {
  const o = await loggedIn(s.browser, s.srv.url, s.srv.owner);
  try {
    await o.page.goto(`${s.srv.url}/#organization/no-such-tab`);
    await o.page.getByLabel('Emails to invite').waitFor({ timeout: 5000 });
    const sections = o.page.getByRole('navigation', { name: 'Administration sections' });
    assert.equal(await sections.getByRole('link', { name: 'Users' }).getAttribute('aria-current'), 'page');
    await o.page.goto(`${s.srv.url}/#settings/no-such-tab`);
    await o.page.getByLabel('Full name').waitFor({ timeout: 5000 });
    assert.equal(await o.page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'Profile' }).getAttribute('aria-current'), 'page');
  } finally {
    await o.context.close();
  }
});

test('settings: a new name seen by others, a notification setting kept, the API key shown and a zuliprc downloaded', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const b = await loggedIn(s.browser, s.srv.url, s.bob);
  try {
    await a.page.getByRole('link', { name: 'Settings' }).click();
    await a.page.getByRole('link', { name: 'Profile' }).click();
    await a.page.getByLabel('Full name').fill('Alice Anders-Smith');
    await a.page.getByRole('button', { name: 'Save name' }).click();
    await b.page.getByText('Alice Anders-Smith').first().waitFor({ timeout: 5000 });
    assert.equal((await person(s.bob, s.alice.api.userId)).full_name, 'Alice Anders-Smith');

    await a.page.getByRole('link', { name: 'Notifications' }).click();
    const email = a.page.getByRole('checkbox', { name: 'Email when I am away' });
    const was = await email.isChecked();
    await email.setChecked(!was);
    await a.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: 5000 });
    await a.page.reload();
    await a.page.getByRole('checkbox', { name: 'Email when I am away' }).waitFor();
    assert.equal(await a.page.getByRole('checkbox', { name: 'Email when I am away' }).isChecked(), !was);
    const state = await s.alice.api.post('/register', { fetch_event_types: JSON.stringify(['user_settings']) });
    assert.equal(state.body.user_settings.enable_offline_email_notifications, !was);

    await a.page.getByRole('link', { name: 'API key' }).click();
    await a.page.getByRole('button', { name: 'Show API key' }).click();
    assert.equal((await a.page.locator('code.key').textContent())?.trim(), s.alice.api.apiKey);
    const [download] = await Promise.all([a.page.waitForEvent('download'), a.page.getByRole('link', { name: 'Download zuliprc' }).click()]);
    assert.equal(download.suggestedFilename(), 'zuliprc');
    const text = readFileSync((await download.path())!, 'utf8');
    assert.equal(text, `[api]\nemail=${s.alice.email}\nkey=${s.alice.api.apiKey}\nsite=${s.srv.url}\n`);
  } finally {
    await a.context.close();
    await b.context.close();
  }
});
