// The basic Markdown renderer: Zulip's expected output for the everyday syntax (from Zulip's own
// test cases), escaping of raw HTML, mentions with the flags they carry, linkifiers, topic links,
// and bounded time on hostile input. The last tests check that sends store what the renderer makes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown, topicLinks, type MentionUser } from '../src/markdown/render.js';
import { compilePattern } from '../src/lib/linkifier_patterns.js';
import { startTestServer, type Client, type TestServer } from './helpers.js';

/** [name, input, Zulip's expected HTML] from Zulip's markdown test cases. */
const ZULIP_CASES: Array<[string, string, string]> = [
  ["basic_paragraph", "test_input", "<p>test_input</p>"],
  ["codeblock_multiline", "Hamlet once said\n~~~~\ndef func():\n    x = 1\n\n    y = 2\n\n    z = 3\n~~~~\nAnd all was good.", "<p>Hamlet once said</p>\n<div class=\"codehilite\"><pre><span></span><code>def func():\n    x = 1\n\n    y = 2\n\n    z = 3\n</code></pre></div>\n<p>And all was good.</p>"],
  ["codeblock_trailing_whitespace", "Hamlet once said\n~~~~\ndef func():\n    x = 1\n\n    y = 2\t\t\n\n    z = 3       \n~~~~\nAnd all was good.", "<p>Hamlet once said</p>\n<div class=\"codehilite\"><pre><span></span><code>def func():\n    x = 1\n\n    y = 2\n\n    z = 3\n</code></pre></div>\n<p>And all was good.</p>"],
  ["codeblock_hilite_invented_language", "``` inventedlanguage\ndef speak(self):\n    x = 1\n```", "<div class=\"codehilite\" data-code-language=\"inventedlanguage\"><pre><span></span><code>def speak(self):\n    x = 1\n</code></pre></div>"],
  ["fenced_normal_quote", "Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~", "<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n</blockquote>"],
  ["fenced_nested_quote", "Hamlet said:\n~~~ quote\nPolonius said:\n> This above all: to thine ownself be true,\nAnd it must follow, as the night the day,\nThou canst not then be false to any man.\n\nWhat good advice!\n~~~", "<p>Hamlet said:</p>\n<blockquote>\n<p>Polonius said:</p>\n<blockquote>\n<p>This above all: to thine ownself be true,<br>\nAnd it must follow, as the night the day,<br>\nThou canst not then be false to any man.</p>\n</blockquote>\n<p>What good advice!</p>\n</blockquote>"],
  ["multiple_blockquote_with_quote_message", "Hamlet said:\n~~~quote\nCan we talk ?\n~~~\n> Yes !!\n\nWelcome to Open Source.", "<p>Hamlet said:</p>\n<blockquote>\n<p>Can we talk ?</p>\n</blockquote>\n<blockquote>\n<p>Yes !!</p>\n</blockquote>\n<p>Welcome to Open Source.</p>"],
  ["fenced_quote_with_hashtag", "```quote\n# line 1\n#line 2\n```", "<blockquote>\n<h1>line 1</h1>\n<p>#line 2</p>\n</blockquote>"],
  ["four_space_code_block", "    def foo(): pass", "<div class=\"codehilite\"><pre><span></span><code>def foo(): pass\n</code></pre></div>"],
  ["reference_links_disabled", "Hello [world]\n\n[world]: https://google.com", "<p>Hello [world]</p>\n<p>[world]: <a href=\"https://google.com\">https://google.com</a></p>"],
  ["ulist_standard_1", "Some text with a list:\n\n* One item\n* Two items\n* Three items", "<p>Some text with a list:</p>\n<ul>\n<li>One item</li>\n<li>Two items</li>\n<li>Three items</li>\n</ul>"],
  ["ulist_nested_ulist_two_space_indent", "Nested list\n* I am outer list\n  * I am inner nested list first item\n  * I am inner nested list second item", "<p>Nested list</p>\n<ul>\n<li>I am outer list<ul>\n<li>I am inner nested list first item</li>\n<li>I am inner nested list second item</li>\n</ul>\n</li>\n</ul>"],
  ["strikthrough_multiword_with_space_in_between", "I ~~ like software ~~ love hardware", "<p>I <del> like software </del> love hardware</p>"],
  ["strikthrough_link", "~~test http://xx.xx link~~", "<p><del>test <a href=\"http://xx.xx\">http://xx.xx</a> link</del></p>"],
  ["emphasis_code", "const char *x = (char *)y", "<p>const char *x = (char *)y</p>"],
  ["underscore_disabled", "_foo_", "<p>_foo_</p>"],
  ["underscore_strong_disabled", "__foo__", "<p>__foo__</p>"],
  ["star_strong_em", "***foo***", "<p><strong><em>foo</em></strong></p>"],
  ["hashheading_enabled", "# Hello world", "<h1>Hello world</h1>"],
  ["hashheading_needs_spaces", "#Hello world", "<p>#Hello world</p>"],
  ["link_with_text", "[hello](https://github.com)", "<p><a href=\"https://github.com\">hello</a></p>"],
  ["link_without_text", "[](https://github.com)", "<p><a href=\"https://github.com\">https://github.com</a></p>"],
  ["safe_html", "<h1>stay normal</h1> thanks", "<p>&lt;h1&gt;stay normal&lt;/h1&gt; thanks</p>"],
  ["safe_html_nested_script_tag", "<<script>script>evil()<</script>/script>", "<p>&lt;&lt;script&gt;script&gt;evil()&lt;&lt;/script&gt;/script&gt;</p>"],
  ["safe_html_in_code", "~~~\n<h1>stay normal</h1>", "<div class=\"codehilite\"><pre><span></span><code>&lt;h1&gt;stay normal&lt;/h1&gt;\n</code></pre></div>"],
  ["ampampamp", "& &amp; &amp;amp;\n~~~~\n& &amp; &amp;amp;\n~~~~\n    & &amp; &amp;amp;", "<p>&amp; &amp; &amp;amp;</p>\n<div class=\"codehilite\"><pre><span></span><code>&amp; &amp;amp; &amp;amp;amp;\n</code></pre></div>\n<div class=\"codehilite\"><pre><span></span><code>&amp; &amp;amp; &amp;amp;amp;\n</code></pre></div>"],
  ["dangerous_block_having_backticks", "``` one ```\n\n``` two ```\n\n~~~~\nx = 1", "<p><code> one </code></p>\n<p><code> two </code></p>\n<div class=\"codehilite\"><pre><span></span><code>x = 1\n</code></pre></div>"],
  ["emphasis_with_html", "*<h1>Hello world</h1>*", "<p><em>&lt;h1&gt;Hello world&lt;/h1&gt;</em></p>"],];

const USERS: MentionUser[] = [
  { id: 7, full_name: 'Zoe', is_active: true },
  { id: 10, full_name: 'King Hamlet', is_active: true },
  { id: 11, full_name: 'Twin', is_active: true },
  { id: 12, full_name: 'Twin', is_active: true },
  { id: 13, full_name: 'Gone Away', is_active: false },
  { id: 14, full_name: 'A & <B>', is_active: true },
];
const GROUPS = [{ id: 30, name: 'support' }];
const render = (content: string) => renderMarkdown(content, { users: USERS, groups: GROUPS });

test("Zulip's expected output for the basic syntax", () => {
  for (const [name, input, expected] of ZULIP_CASES) assert.equal(render(input).html, expected, name);
});

test('paragraphs, line breaks, emphasis, lists, quotes, headings', () => {
  assert.equal(render('one\ntwo\n\nthree').html, '<p>one<br>\ntwo</p>\n<p>three</p>');
  assert.equal(render('*em* **strong** `code`').html, '<p><em>em</em> <strong>strong</strong> <code>code</code></p>');
  assert.equal(render('` spaced `').html, '<p><code> spaced </code></p>', 'inline code keeps its spaces, as in Zulip');
  assert.equal(render('`not\ncode`').html, '<p>`not<br>\ncode`</p>', 'inline code stays on one line');
  assert.equal(render('* a\n* b').html, '<ul>\n<li>a</li>\n<li>b</li>\n</ul>');
  assert.equal(render('1. a\n2. b').html, '<ol>\n<li>a</li>\n<li>b</li>\n</ol>');
  assert.equal(render('> quoted\ntext').html, '<blockquote>\n<p>quoted<br>\ntext</p>\n</blockquote>');
  assert.equal(render('```quote\n**q**\n```').html, '<blockquote>\n<p><strong>q</strong></p>\n</blockquote>');
  assert.equal(render('````quote\n```\ncode\n```\nafter\n````').html, '<blockquote>\n<div class="codehilite"><pre><span></span><code>code\n</code></pre></div>\n<p>after</p>\n</blockquote>');
  assert.equal(render('~~~quote\nnever closed').html, '<blockquote>\n<p>never closed</p>\n</blockquote>');
  assert.equal(render('~~gone~~ ~~~not~~~').html, '<p><del>gone</del> ~~~not~~~</p>');
  assert.equal(render('snake_case_name and __init__').html, '<p>snake_case_name and __init__</p>');
  assert.equal(render('[Zulip](https://zulip.com) https://example.com/a?b=1').html, '<p><a href="https://zulip.com">Zulip</a> <a href="https://example.com/a?b=1">https://example.com/a?b=1</a></p>');
  assert.equal(render('![alt](https://example.com/i.png)').html, '<p><a href="https://example.com/i.png">alt</a></p>', 'no remote images inline');
  assert.equal(render('```js\nlet x;\n```').html, '<div class="codehilite" data-code-language="JavaScript"><pre><span></span><code><span class="k">let</span> <span class="n">x</span><span class="p">;</span>\n</code></pre></div>');
});

test('raw HTML is escaped, never passed through; unsafe links are not links', () => {
  assert.equal(render('<script>alert(1)</script>').html, '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
  assert.equal(render('<img src=x onerror=alert(1)>').html, '<p>&lt;img src=x onerror=alert(1)&gt;</p>');
  assert.equal(render('<b>bold</b>').html, '<p>&lt;b&gt;bold&lt;/b&gt;</p>');
  assert.equal(render('[x](javascript:alert(1))').html, '<p>[x](javascript:alert(1))</p>');
  assert.equal(render('[x](data:text/html,hi)').html, '<p>[x](data:text/html,hi)</p>');
  assert.ok(!render('```\n</code></pre><script>\n```').html.includes('<script>'));
  assert.ok(!render('@**A & <B>**').html.includes('<B>'), 'names are escaped in mentions');
});

test('user mentions: by name, by name and id, silent; the mentioned ids come back', () => {
  const r = render('hi @**King Hamlet** and @**zoe**');
  assert.equal(r.html, '<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span> and <span class="user-mention" data-user-id="7">@Zoe</span></p>');
  assert.deepEqual([...r.mentionedUserIds].sort(), [10, 7].sort());
  assert.equal(r.wildcard, null);
  const byId = render('@**Twin|12** @**|11**');
  assert.equal(byId.html, '<p><span class="user-mention" data-user-id="12">@Twin</span> <span class="user-mention" data-user-id="11">@Twin</span></p>');
  assert.deepEqual([...byId.mentionedUserIds].sort(), [11, 12]);
  const silent = render('@_**Zoe|7** said');
  assert.equal(silent.html, '<p><span class="user-mention silent" data-user-id="7">Zoe</span> said</p>');
  assert.equal(silent.mentionedUserIds.size, 0);
  for (const content of ['@**Twin**', '@**Gone Away**', '@**Nobody**', '@**Zoe|10**', 'mail@**Zoe**', '`@**Zoe**`', '@**Zo*e**']) {
    const none = render(content);
    assert.equal(none.mentionedUserIds.size, 0, content);
    assert.ok(!none.html.includes('user-mention'), content);
  }
  assert.equal(render('(@**Zoe**)').mentionedUserIds.size, 1, 'an opening bracket may precede a mention');
});

test('wildcard mentions: channel and topic, silent ones notify nobody', () => {
  for (const name of ['all', 'everyone', 'channel', 'stream']) {
    const r = render(`@**${name}** hi`);
    assert.equal(r.html, `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@${name}</span> hi</p>`);
    assert.deepEqual([r.wildcard, r.streamWildcard, r.topicWildcard], ['stream', true, false]);
  }
  const topic = render('@**topic** hi');
  assert.equal(topic.html, '<p><span class="topic-mention">@topic</span> hi</p>');
  assert.deepEqual([topic.wildcard, topic.streamWildcard, topic.topicWildcard], ['topic', false, true]);
  const both = render('@**topic** and @**all**');
  assert.deepEqual([both.wildcard, both.streamWildcard, both.topicWildcard], ['stream', true, true]);
  const silent = render('@_**all** @_**topic**');
  assert.equal(silent.html, '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span> <span class="topic-mention silent">topic</span></p>');
  assert.equal(silent.wildcard, null);
});

test('user group mentions', () => {
  const r = render('ask @*support* or @_*Support*');
  assert.equal(r.html, '<p>ask <span class="user-group-mention" data-user-group-id="30">@support</span> or <span class="user-group-mention silent" data-user-group-id="30">support</span></p>');
  assert.deepEqual([...r.mentionedGroupIds], [30]);
  assert.equal(render('@*unknown* group').html, '<p>@<em>unknown</em> group</p>');
});

test('linkifiers turn matches into links outside code and links; topic_links lists them with plain URLs', () => {
  const re = compilePattern('#(?P<id>[0-9]+)')!;
  const linkifiers = [{ re, template: 'https://tracker.example.com/issue/{id}' }];
  const r = renderMarkdown('see #42 and `#7` and [#9](https://x.example)', { linkifiers });
  assert.equal(r.html, '<p>see <a href="https://tracker.example.com/issue/42">#42</a> and <code>#7</code> and <a href="https://x.example">#9</a></p>');
  assert.deepEqual(topicLinks('fix #12 per https://zulip.com/api', linkifiers), [
    { text: '#12', url: 'https://tracker.example.com/issue/12' },
    { text: 'https://zulip.com/api', url: 'https://zulip.com/api' },
  ]);
  assert.deepEqual(topicLinks('no links here', linkifiers), []);
});

// A hang guard (the time-out), not a speed test: `npm run bench` reports the slowest hostile input.
test('hostile input renders, and renders safely', { timeout: 60_000 }, () => {
  const inputs = [
    '*'.repeat(10000), '_'.repeat(10000), '~'.repeat(10000), '`'.repeat(10000), '['.repeat(10000), '> '.repeat(5000),
    '@**'.repeat(3333), '@*'.repeat(5000), '~~a'.repeat(3333), '`a``'.repeat(2500), '**a'.repeat(3333), '```quote\n'.repeat(1000),
    Array.from({ length: 140 }, (_, i) => '`'.repeat(i + 3) + 'quote').join('\n'), '* '.repeat(5000), '1. '.repeat(3333), 'http://a.b/'.repeat(900),
    Array.from({ length: 2500 }, (_, i) => '`'.repeat((i % 60) + 1)).join('x'),
  ];
  for (const input of inputs) {
    const r = renderMarkdown(input, { users: USERS, groups: GROUPS });
    assert.equal(typeof r.html, 'string');
    assert.doesNotMatch(r.html, /<script|<a [^>]*href="javascript:/i, JSON.stringify(input.slice(0, 12)));
  }
});

let t: TestServer;
let ann: Client;
before(async () => {
  t = await startTestServer();
  ann = await t.createUser({ name: 'Ann Lee' });
  await t.owner.post('/users/me/subscriptions', { subscriptions: [{ name: 'general' }], principals: [t.owner.userId, ann.userId] } as Record<string, object>);
});
after(async () => {
  await t.close();
});

test('a send stores the rendered HTML, and mentions become flags', async () => {
  const res = await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'md', content: '**hi** @**Ann Lee** <b>x</b>' });
  assert.equal(res.status, 200);
  const got = await ann.get(`/messages/${res.body.id}`);
  assert.equal(got.body.message.content, `<p><strong>hi</strong> <span class="user-mention" data-user-id="${ann.userId}">@Ann Lee</span> &lt;b&gt;x&lt;/b&gt;</p>`);
  assert.deepEqual(got.body.message.flags, ['mentioned']);
  assert.equal(got.body.raw_content, '**hi** @**Ann Lee** <b>x</b>');
});

test("a topic's links come from the organization's linkifiers", async () => {
  const made = await t.owner.post('/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/issue/{id}' });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  const res = await t.owner.post('/messages', { type: 'stream', to: 'general', topic: 'bug #77', content: 'x' });
  const m = (await ann.get(`/messages/${res.body.id}`)).body.message;
  assert.deepEqual(m.topic_links, [{ text: '#77', url: 'https://tracker.example.com/issue/77' }]);
});

test("a line break keeps the next line's leading spaces, in paragraphs and in a list item's first text", () => {
  const html = (md: string) => renderMarkdown(md).html;
  assert.equal(html('a\n  b'), '<p>a<br>\n  b</p>');
  assert.equal(html('* I am outer list\n  I am something inside'), '<ul>\n<li>I am outer list<br>\n  I am something inside</li>\n</ul>');
  // Past the marker's column only: a nested item's lines keep what lies beyond its own marker.
  assert.equal(html('* a\n  * b\n    c'), '<ul>\n<li>a<ul>\n<li>b<br>\n  c</li>\n</ul>\n</li>\n</ul>');
  // A later paragraph of the item is indented as the item's content: nothing kept.
  assert.equal(html('* x\n\n  y\n  z'), '<ul>\n<li>\n<p>x</p>\n<p>y<br>\nz</p>\n</li>\n</ul>');
});

test('PHP is lexed as Zulip lexes it (startinline): an opening tag is "<?" and a name, calls are plain names', () => {
  assert.equal(
    renderMarkdown('```php\n<?php echo foo($x); ?>\n```').html,
    '<div class="codehilite" data-code-language="PHP"><pre><span></span><code><span class="o">&lt;?</span><span class="nx">php</span> ' +
      '<span class="k">echo</span> <span class="nx">foo</span><span class="p">(</span><span class="nv">$x</span><span class="p">);</span> ' +
      '<span class="cp">?&gt;</span>\n</code></pre></div>',
  );
});
