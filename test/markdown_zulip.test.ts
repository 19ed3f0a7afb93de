// Zulip's Markdown beyond CommonMark, as clients receive it: emoji, emoticons, spoilers, TeX,
// global times, previews through camo, channel/topic/message links, relative local links. The
// renderer is called directly for the markup, and through a real server for what depends on the
// organization (channel links, the sender's emoticon setting, camo configuration).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { renderMarkdown } from '../src/markdown/render.js';
import { startTestServer, type Client, type TestServer } from './helpers.js';

const html = (md: string, ctx = {}) => renderMarkdown(md, ctx).html;

test('emoji: names, aliases, Unicode characters, the zulip emoji, custom emoji; unknown names stay text', () => {
  assert.equal(
    html(':octopus: and :thumbs_up:'),
    '<p><span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:</span> and ' +
      '<span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span></p>',
  );
  assert.equal(html('🐙'), '<p><span aria-label="octopus" class="emoji emoji-1f419" role="img" title="octopus">:octopus:</span></p>');
  assert.equal(html(':zulip:'), '<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>');
  assert.equal(
    html(':party_parrot:', { realmEmoji: [{ name: 'party_parrot', source_url: '/user_avatars/2/emoji/images/7.gif' }] }),
    '<p><img alt=":party_parrot:" class="emoji" src="/user_avatars/2/emoji/images/7.gif" title="party parrot"></p>',
  );
  assert.equal(html(':no_such_emoji: :skin-tone-2:'), '<p>:no_such_emoji: :skin-tone-2:</p>');
  assert.equal(html('`:octopus:`'), '<p><code>:octopus:</code></p>', 'not inside code');
  assert.equal(html('```\n🐙\n```'), '<div class="codehilite"><pre><span></span><code>🐙\n</code></pre></div>');
});

test("emoticons translate only for senders who turned translate_emoticons on, and only between spaces or punctuation", () => {
  assert.equal(html('hi :)'), '<p>hi :)</p>');
  const on = { translateEmoticons: true };
  assert.equal(html('hi :)', on), '<p>hi <span aria-label="slight smile" class="emoji emoji-1f642" role="img" title="slight smile">:slight_smile:</span></p>');
  assert.equal(html('a:) b', on), '<p>a:) b</p>');
  assert.equal(html('see http://x.example.com/:p', on), '<p>see <a href="http://x.example.com/:p">http://x.example.com/:p</a></p>', 'not inside links');
});

test("code blocks: Pygments' language names and token classes, languages named on the first line, unknown languages plain", () => {
  assert.equal(
    html('```py\nif x == 1:\n    print("hi")  # note\n```'),
    '<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="k">if</span> <span class="n">x</span> <span class="o">==</span> <span class="mi">1</span><span class="p">:</span>\n' +
      '    <span class="nb">print</span><span class="p">(</span><span class="s2">&quot;hi&quot;</span><span class="p">)</span>  <span class="c1"># note</span>\n</code></pre></div>',
  );
  assert.equal(
    html('```\n#!/usr/bin/env python\nx\n```'),
    '<div class="codehilite"><pre><span></span><code><span class="ch">#!/usr/bin/env python</span>\n<span class="n">x</span>\n</code></pre></div>',
  );
  assert.equal(html('```klingon\n<b>x</b>\n```'), '<div class="codehilite" data-code-language="klingon"><pre><span></span><code>&lt;b&gt;x&lt;/b&gt;\n</code></pre></div>');
  assert.doesNotMatch(html('```js\n"<script>alert(1)</script>"\n```'), /<script/);
});

test("lists as Zulip writes them: two-space nesting, mixed bullets in one list, nested numbering kept", () => {
  assert.equal(html('* One\n- Two\n+ Three'), '<ul>\n<li>One</li>\n<li>Two</li>\n<li>Three</li>\n</ul>');
  assert.equal(html('1. A\n2. B\n  3. C\n4. D'), '<ol>\n<li>A</li>\n<li>B<ol start="3">\n<li>C</li>\n</ol>\n</li>\n<li>D</li>\n</ol>');
  assert.equal(html('- a\n  - b\n    - c'), '<ul>\n<li>a<ul>\n<li>b<ul>\n<li>c</li>\n</ul>\n</li>\n</ul>\n</li>\n</ul>');
  assert.equal(html('```\n1. A\n  2. B\n```'), '<div class="codehilite"><pre><span></span><code>1. A\n  2. B\n</code></pre></div>', 'code stays as typed');
  assert.equal(html('text\n\n    1. A\n      2. B'), '<p>text</p>\n<div class="codehilite"><pre><span></span><code>1. A\n  2. B\n</code></pre></div>');
});

test('spoilers: a Markdown header and hidden content, nested in quotes', () => {
  assert.equal(
    html('```spoiler **Plot** twist\nIt was *him*.\n```'),
    '<div class="spoiler-block"><div class="spoiler-header">\n<p><strong>Plot</strong> twist</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>It was <em>him</em>.</p>\n</div></div>',
  );
  assert.match(html('```quote\n```spoiler\nhidden\n```\n```'), /^<blockquote>\n<div class="spoiler-block"><div class="spoiler-header">\n<\/div>/);
});

test('TeX: inline and display through KaTeX; errors keep the source, escaped; no Markdown inside', () => {
  const inline = html('Euler: $$e^{i\\pi} = -1$$');
  assert.match(inline, /^<p>Euler: <span class="katex"><span class="katex-mathml"><math xmlns="http:\/\/www.w3.org\/1998\/Math\/MathML">/);
  assert.match(inline, /<annotation encoding="application\/x-tex">e\^\{i\\pi\} = -1<\/annotation>/);
  assert.match(html('```math\n\\frac{a}{b}\n```'), /^<p><span class="katex-display"><span class="katex">/);
  assert.equal(html('$$\\unknowncommand{x}$$'), '<p><span class="tex-error">$$\\unknowncommand{x}$$</span></p>');
  assert.equal(html('~~~math\n\\bad{<i>}\n~~~'), '<p><span class="tex-error">\\bad{&lt;i&gt;}</span></p>');
  assert.equal(html('costs $5 or $$'), '<p>costs $5 or $$</p>', 'lone dollars are text');
  assert.equal(html('`$$x$$`'), '<p><code>$$x$$</code></p>');
});

test('global times: ISO, Unix and natural dates become <time>; anything else stays as typed', () => {
  assert.equal(html('<time:2024-03-01T09:30:00+01:00>'), '<p><time datetime="2024-03-01T08:30:00Z">2024-03-01T09:30:00+01:00</time></p>');
  assert.equal(html('at <time:1700000000>'), '<p>at <time datetime="2023-11-14T22:13:20Z">1700000000</time></p>');
  assert.equal(html('<time:Jun 5th 2017, 10:30PM>'), '<p><time datetime="2017-06-05T22:30:00Z">Jun 5th 2017, 10:30PM</time></p>');
  assert.equal(html('<time:not a date>'), '<p>&lt;time:not a date&gt;</p>');
  assert.equal(html('<time:**bold**>'), '<p>&lt;time:**bold**&gt;</p>');
  assert.equal(html('<time:99999999999999>'), '<p>&lt;time:99999999999999&gt;</p>', "beyond Python's date range");
});

test('previews: images and videos after their paragraph, in list items, not in quotes; proxied through camo', () => {
  const camo = { url: 'https://camo.example.com/', key: 'secret' };
  const url = 'https://img.example.com/cat.png';
  const proxied = `https://camo.example.com/${createHmac('sha1', 'secret').update(url).digest('hex')}/${Buffer.from(url).toString('hex')}`;
  assert.equal(
    html(`look ${url}\nnice`, { camo }),
    `<p>look <a href="${url}">${url}</a><br>\nnice</p>\n<div class="message_inline_image"><a href="${url}"><img src="${proxied}"></a></div>`,
  );
  assert.equal(html(url), `<div class="message_inline_image"><a href="${url}"><img src="${url}"></a></div>`, 'without camo the image loads directly');
  assert.equal(
    html(`[cat](${url})`),
    `<p><a href="${url}">cat</a></p>\n<div class="message_inline_image"><a href="${url}" title="cat"><img src="${url}"></a></div>`,
  );
  assert.equal(
    html(`* ${url}`),
    `<ul>\n<li><a href="${url}">${url}</a><div class="message_inline_image"><a href="${url}"><img src="${url}"></a></div></li>\n</ul>`,
  );
  assert.equal(html(`> ${url}`), `<blockquote>\n<p><a href="${url}">${url}</a></p>\n</blockquote>`);
  assert.equal((html(`${url} ${url}`).match(/message_inline_image/g) ?? []).length, 1, 'one preview per URL');
  assert.match(html('https://v.example.com/clip.mp4'), /^<div class="message_inline_image message_inline_video"><a href="https:\/\/v.example.com\/clip.mp4"><video preload="metadata" src=/);
  assert.equal(
    html('![tune](https://a.example.com/song.mp3)'),
    '<p><audio controls data-original-url="https://a.example.com/song.mp3" preload="metadata" src="https://a.example.com/song.mp3" title="tune"></audio></p>',
  );
  assert.equal(html('javascript:alert(1).png'), '<p>javascript:alert(1).png</p>');
  // An uploaded image (the link the compose box writes) previews from this server, never via camo.
  const upload = '/user_uploads/2/ab/cdef/cat.png';
  assert.equal(
    html(`[cat.png](${upload})`, { camo }),
    `<p><a href="${upload}">cat.png</a></p>\n<div class="message_inline_image"><a href="${upload}" title="cat.png"><img src="${upload}"></a></div>`,
  );
  assert.equal(html('[notes.txt](/user_uploads/2/ab/cdef/notes.txt)'), '<p><a href="/user_uploads/2/ab/cdef/notes.txt">notes.txt</a></p>');
});

test('quirks Zulip keeps: empty quotes, bold within one line, trailing spaces, bare-scheme links', () => {
  assert.equal(html('>'), '<p>&gt;</p>');
  assert.equal(html('**a\nb**'), '<p>**a<br>\nb**</p>');
  assert.equal(html('**a b**'), '<p><strong>a b</strong></p>');
  assert.equal(html('keep  '), '<p>keep  </p>');
  assert.equal(html('[](foo://)'), '<p>[](foo://)</p>');
});

let t: TestServer;
let member: Client;
before(async () => {
  t = await startTestServer({ camo: { url: 'https://camo.example.com/', key: 'k' } });
  member = await t.createUser({ name: 'Mark Down' });
});
after(async () => {
  await t.close();
});

test('channel, topic and message links for channels the sender can see; local links become relative', async () => {
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'design team' }] });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'secret plans' }], invite_only: true });
  const sent = await t.owner.post('/messages', { type: 'stream', to: 'design team', topic: 'logo v2.0', content: 'first' });
  const channelId = (await t.owner.get('/get_stream_id', { stream: 'design team' })).body.stream_id;
  const render = async (c: Client, content: string) => (await c.post('/messages/render', { content })).body.rendered;

  assert.equal(
    await render(member, 'see #**design team**'),
    `<p>see <a class="stream" data-stream-id="${channelId}" href="/#narrow/channel/${channelId}-design-team">#design team</a></p>`,
  );
  assert.equal(
    await render(member, '#**design team>logo v2.0**'),
    `<p><a class="stream-topic" data-stream-id="${channelId}" href="/#narrow/channel/${channelId}-design-team/topic/logo.20v2.2E0/with/${sent.body.id}">#design team &gt; logo v2.0</a></p>`,
  );
  assert.equal(
    await render(member, '#**design team>new topic**'),
    `<p><a class="stream-topic" data-stream-id="${channelId}" href="/#narrow/channel/${channelId}-design-team/topic/new.20topic">#design team &gt; new topic</a></p>`,
  );
  assert.equal(
    await render(member, `#**design team>logo v2.0@${sent.body.id}**`),
    `<p><a class="message-link" href="/#narrow/channel/${channelId}-design-team/topic/logo.20v2.2E0/near/${sent.body.id}">#design team &gt; logo v2.0 @ 💬</a></p>`,
  );
  assert.equal(await render(member, '#**secret plans**'), '<p>#<strong>secret plans</strong></p>', 'a private channel the sender cannot see is not linked');
  assert.match(await render(t.owner, '#**secret plans**'), /^<p><a class="stream" data-stream-id="\d+"/);
  assert.equal(await render(member, '#**no such channel**'), '<p>#<strong>no such channel</strong></p>');
  assert.equal(await render(member, `[here](${t.url}/#narrow/channel/${channelId}-design-team)`), `<p><a href="#narrow/channel/${channelId}-design-team">here</a></p>`);
  assert.equal(await render(member, `[f](${t.url}/user_uploads/2/ab/cd/f.txt)`), '<p><a href="user_uploads/2/ab/cd/f.txt">f</a></p>');
  assert.equal(await render(member, `[x](${t.url}/help/)`), `<p><a href="${t.url}/help/">x</a></p>`, 'other paths stay absolute');
});

test("a sender's translate_emoticons setting and the server's camo settle what gets stored", async () => {
  assert.equal((await member.patch('/settings', { translate_emoticons: true })).status, 200);
  const sent = await member.post('/messages', { type: 'direct', to: [t.owner.userId], content: 'thanks :) https://x.example.com/a.gif' });
  const stored = (await t.owner.get(`/messages/${sent.body.id}`)).body.message.content;
  assert.match(stored, /<span aria-label="slight smile" class="emoji emoji-1f642"/);
  assert.match(stored, /<img src="https:\/\/camo\.example\.com\/[0-9a-f]{40}\/[0-9a-f]+"><\/a><\/div>$/);
  const raw = (await t.owner.get(`/messages/${sent.body.id}`, { apply_markdown: false })).body.message.content;
  assert.equal(raw, 'thanks :) https://x.example.com/a.gif', 'the source stays as typed');
});
