// Message actions and the live state around them: star (and the Starred view), quote and reply,
// edit history, typing notifications seen by the other person, a subscription added live.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testScene, loggedIn, makeChannel } from './harness.js';

const s = testScene();

// A 1×1 PNG, as a browser hands a dropped or pasted file to the page.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
function pngTransfer({ b64, name }: { b64: string; name: string }): DataTransfer {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const dt = new DataTransfer();
  dt.items.add(new File([bytes], name, { type: 'image/png' }));
  return dt;
}

test('star, quote and reply, edit history, typing seen live, a channel added live', async () => {
  const sent = await s.bob.api.post('/messages', { type: 'stream', to: s.general, topic: 'ideas', content: 'Let us plant a garden' });
  await s.bob.api.patch(`/messages/${sent.body.id}`, { content: 'Let us plant a vegetable garden' });
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  const b = await loggedIn(s.browser, s.srv.url, s.bob);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/ideas`);
    const msg = a.page.getByRole('article').filter({ hasText: 'vegetable garden' });
    await msg.waitFor({ timeout: 5000 });

    // Star it; the Starred view lists it.
    await msg.hover();
    await msg.getByRole('button', { name: 'Star' }).click();
    await msg.getByRole('button', { name: 'Unstar' }).waitFor({ timeout: 5000 });
    await a.page.getByRole('link', { name: 'Starred' }).click();
    await a.page.getByRole('article').filter({ hasText: 'vegetable garden' }).waitFor({ timeout: 5000 });
    await a.page.goBack();
    await msg.waitFor({ timeout: 5000 });

    // The edit history shows the first version.
    await msg.hover();
    await msg.getByRole('button', { name: 'View edit history' }).click();
    await msg.getByRole('region', { name: 'Edit history' }).getByText('Let us plant a garden').waitFor({ timeout: 5000 });

    // Quote and reply fills the Message box with a quote of the original Markdown.
    await msg.hover();
    await msg.getByRole('button', { name: 'Quote and reply' }).click();
    const box = a.page.getByRole('textbox', { name: 'Message' });
    await a.page.waitForFunction(() => /```quote/.test((document.querySelector('textarea[aria-label=Message]') as HTMLTextAreaElement | null)?.value ?? ''), undefined, { timeout: 5000 });
    assert.match(await box.inputValue(), /Let us plant a vegetable garden/);

    // Bob starts typing in the topic: Alice sees it.
    await b.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/ideas`);
    await b.page.getByRole('textbox', { name: 'Message' }).pressSequentially('Tomatoes');
    await a.page.getByText('Bob Brown is typing…').waitFor({ timeout: 5000 });

    // An administrator subscribes Alice to a new channel: it appears in her sidebar.
    await makeChannel(s.srv.owner, 'gardening', [s.srv.owner, s.alice]);
    await a.page.getByRole('navigation', { name: 'Conversations' }).getByRole('link', { name: /gardening/ }).waitFor({ timeout: 5000 });
  } finally {
    await a.context.close();
    await b.context.close();
  }
});

test('an image dropped on compose is uploaded and sent; it shows through a temporary URL, never with the key in an address', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/pictures`);
    await a.page.getByRole('textbox', { name: 'Message' }).waitFor();
    const dataTransfer = await a.page.evaluateHandle(pngTransfer, { b64: PNG, name: 'dot.png' });
    await a.page.locator('section.compose').dispatchEvent('drop', { dataTransfer });
    await a.page.waitForFunction(() => /user_uploads/.test((document.querySelector('textarea[aria-label=Message]') as HTMLTextAreaElement | null)?.value ?? ''), undefined, { timeout: 5000 });
    await a.page.getByRole('button', { name: 'Send' }).click();
    // The renderer writes a link and an inline preview for an uploaded image; the client swaps the
    // preview's source for the temporary URL the API hands out, so the image shows.
    const article = a.page.getByRole('article').filter({ hasText: 'Alice Anders' });
    await article.getByRole('link', { name: 'dot.png', exact: true }).first().waitFor({ timeout: 5000 });
    const preview = article.locator('.message_inline_image img');
    await preview.waitFor({ timeout: 5000 });
    await a.page.waitForFunction((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 1, await preview.elementHandle(), { timeout: 5000 });
    assert.match((await preview.getAttribute('src'))!, /^\/user_uploads\/temporary\/[^/]+\/dot\.png$/);
    // The API key appears in no address of the page: not in the markup, not in a request's URL.
    const key = await a.page.evaluate(() => JSON.parse(localStorage.getItem('confab.session')!).apiKey as string);
    assert.ok(!(await a.page.content()).includes(key));
    const urls = await a.page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name));
    assert.ok(urls.some((u) => u.includes('/user_uploads/temporary/')));
    assert.ok(!urls.some((u) => u.includes(key) || u.includes('api_key=')), urls.join('\n'));
  } finally {
    await a.context.close();
  }
});

test('an image pasted into the message box is uploaded and its link written where the cursor was', async () => {
  const a = await loggedIn(s.browser, s.srv.url, s.alice);
  try {
    await a.page.goto(`${s.srv.url}/#narrow/channel/${s.general}-general/topic/pasted`);
    const box = a.page.getByRole('textbox', { name: 'Message' });
    await box.fill('look: ');
    // What the browser dispatches when an image on the clipboard is pasted into the box.
    const clipboardData = await a.page.evaluateHandle(pngTransfer, { b64: PNG, name: 'pasted.png' });
    await box.evaluate((el, data) => el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true })), clipboardData);
    await a.page.waitForFunction(() => /^look: .*\[pasted\.png\]\(\/user_uploads\/[^)]+\)/.test((document.querySelector('textarea[aria-label=Message]') as HTMLTextAreaElement | null)?.value ?? ''), undefined, { timeout: 5000 });
    await a.page.getByRole('button', { name: 'Send' }).click();
    const preview = a.page.getByRole('article').filter({ hasText: 'look:' }).locator('.message_inline_image img');
    await preview.waitFor({ timeout: 5000 });
    await a.page.waitForFunction((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth === 1, await preview.elementHandle(), { timeout: 5000 });
  } finally {
    await a.context.close();
  }
});
