// What a second walk through the client as a person found: a sender's run of messages shown as
// one (Zulip's grouping), a sender's messages offering a direct message rather than a topic,
// words typed while a message is being sent, and subscribing from a channel's view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loggedIn, makeChannel, testScene } from './harness.js';

const s = testScene();

test("a sender's run in one conversation shows the name and avatar once; the others their time when pointed at", async () => {
  const say = (who: typeof s.bob, content: string, topic = 'runs') => who.api.post('/messages', { type: 'stream', to: s.general, topic, content });
  await say(s.bob, 'run one');
  await say(s.bob, 'run two');
  await say(s.bob, 'run three');
  await say(s.alice, 'alice between');
  await say(s.bob, 'bob again');
  await say(s.bob, 'other topic', 'elsewhere');
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#feed`);
    const msg = (text: string) => a.page.getByRole('article').filter({ hasText: text });
    await msg('other topic').waitFor({ timeout: 5000 });
    // Whether the sender's name and avatar take room on screen (the name stays for screen readers).
    const shown = (text: string) =>
      msg(text).evaluate((el) => ({
        name: el.querySelector('.sender')!.getBoundingClientRect().width > 2,
        avatar: el.querySelector('.avatar')!.getBoundingClientRect().height > 0,
        time: getComputedStyle(el.querySelector('time')!).display !== 'none',
      }));
    assert.deepEqual(await shown('run one'), { name: true, avatar: true, time: true });
    assert.deepEqual(await shown('run two'), { name: false, avatar: false, time: false });
    assert.deepEqual(await shown('run three'), { name: false, avatar: false, time: false });
    // Another sender between, or another topic, starts a new run.
    assert.deepEqual(await shown('alice between'), { name: true, avatar: true, time: true });
    assert.deepEqual(await shown('bob again'), { name: true, avatar: true, time: true });
    assert.deepEqual(await shown('other topic'), { name: true, avatar: true, time: true });
    // Each message is still named by its sender, and a run's later one is a line shorter.
    assert.equal(await a.page.getByRole('article', { name: 'Bob Brown' }).filter({ hasText: 'run two' }).count(), 1);
    const heights = await Promise.all(['run one', 'run two'].map((t) => msg(t).evaluate((el) => el.getBoundingClientRect().height)));
    assert.ok(heights[1]! < heights[0]! - 10, `a continued message is shorter (${heights.join(' vs ')})`);
    // Pointed at, its time shows.
    await msg('run two').hover();
    assert.equal((await shown('run two')).time, true);
  } finally {
    await a.context.close();
  }
});

test("a sender's messages offer a direct message to them, not a new topic (there is no channel)", async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/sender/${s.bob.api.userId}-Bob-Brown`);
    const main = a.page.getByRole('main');
    await main.getByRole('heading', { name: 'Messages sent by Bob Brown', level: 1 }).waitFor({ timeout: 5000 });
    assert.equal(await main.getByRole('button', { name: 'New topic' }).count(), 0);
    await main.getByRole('button', { name: 'New direct message' }).click();
    const box = a.page.getByRole('textbox', { name: 'Message' });
    await box.waitFor({ timeout: 5000 });
    assert.equal(await box.getAttribute('placeholder'), 'Message Bob Brown');
    assert.equal(await box.evaluate((el) => el === document.activeElement), true);
  } finally {
    await a.context.close();
  }
});

test('words typed while a message is being sent stay in the box', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    // The server answers slowly: the person goes on typing meanwhile.
    await a.page.route('**/api/v1/messages', async (route) => {
      if (route.request().method() === 'POST') await new Promise((r) => setTimeout(r, 800));
      await route.continue();
    });
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/typing%20on`);
    const box = a.page.getByRole('textbox', { name: 'Message' });
    await box.fill('the first message');
    await box.press('Control+Enter');
    await box.pressSequentially('the next one');
    await a.page.getByRole('article').filter({ hasText: 'the first message' }).waitFor({ timeout: 5000 });
    await a.page.waitForTimeout(200);
    assert.equal(await box.inputValue(), 'the next one');
  } finally {
    await a.context.close();
  }
});

test('Subscribe from a channel view says it is done and leaves the focus on the bar', async () => {
  const garden = await makeChannel(s.srv.owner, 'garden', [s.srv.owner]);
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${garden}-garden`);
    const subscribe = a.page.getByRole('button', { name: 'Subscribe' });
    await subscribe.focus();
    await a.page.keyboard.press('Enter');
    await a.page.getByRole('status').filter({ hasText: 'Subscribed to #garden.' }).waitFor({ timeout: 5000 });
    await subscribe.waitFor({ state: 'detached', timeout: 5000 });
    await a.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /garden/ }).waitFor({ timeout: 5000 });
    assert.equal(await a.page.evaluate(() => document.activeElement?.textContent?.trim()), 'New topic');
  } finally {
    await a.context.close();
  }
});

test("on a phone, a tapped message of a sender's run has its actions beside its text, not over it", async () => {
  const say = (content: string) => s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'phone runs', content });
  await say('the first of the run');
  await say('a second message long enough to reach the right edge of a phone screen and wrap onto more lines');
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 390, height: 844 });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/phone%20runs`);
    const msg = a.page.getByRole('article').filter({ hasText: 'a second message' });
    await msg.click();
    await msg.getByRole('button', { name: 'Add reaction' }).waitFor({ timeout: 5000 });
    const boxes = await msg.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el.querySelector('.rendered')!);
      const lines = [...range.getClientRects()].map((r) => ({ top: r.top, bottom: r.bottom, left: r.left, right: r.right }));
      const actions = el.querySelector('.actions')!.getBoundingClientRect();
      return { lines, actions: { top: actions.top, bottom: actions.bottom, left: actions.left, right: actions.right } };
    });
    const hit = boxes.lines.filter((l) => l.right - l.left > 0 && l.left < boxes.actions.right && boxes.actions.left < l.right && l.top < boxes.actions.bottom && boxes.actions.top < l.bottom);
    assert.deepEqual(hit, [], `the actions ${JSON.stringify(boxes.actions)} cover no line of the text`);
  } finally {
    await a.context.close();
  }
});

test('compose opened over the Inbox on a phone (no Esc key) closes with its own button', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 390, height: 844 });
  try {
    await a.page.goto(`${s.srv.url}/#inbox`);
    await a.page.getByRole('button', { name: 'Show conversations' }).click();
    await a.page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'New direct message' }).click();
    const compose = a.page.getByRole('region', { name: 'Compose' });
    await compose.waitFor({ timeout: 5000 });
    await compose.getByRole('button', { name: 'Close compose' }).click();
    await compose.waitFor({ state: 'detached', timeout: 5000 });
    // In a conversation compose belongs to the view: no button closes it there.
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/lunch`);
    await compose.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 5000 });
    assert.equal(await compose.getByRole('button', { name: 'Close compose' }).count(), 0);
  } finally {
    await a.context.close();
  }
});

test('on a phone Send sits at the right edge of compose, as on the desktop', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice, { width: 390, height: 844 });
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/lunch`);
    const compose = a.page.getByRole('region', { name: 'Compose' });
    const send = compose.getByRole('button', { name: 'Send' });
    await send.waitFor({ timeout: 5000 });
    const [c, b] = await Promise.all([compose.boundingBox(), send.boundingBox()]);
    assert.ok(c && b && c.x + c.width - (b.x + b.width) <= 16, `Send's right edge ${b && b.x + b.width} by compose's ${c && c.x + c.width}`);
  } finally {
    await a.context.close();
  }
});
