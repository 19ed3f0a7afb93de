// Bare links as Zulip finds them (src/markdown/autolinks.ts): where a link may start and end, the
// schemes, domains, addresses and parentheses it takes, its href, topic_links, and time linear in
// the input for texts built to make a backtracking regex explode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderMarkdown, topicLinks } from '../src/markdown/render.js';
import { findLinks } from '../src/markdown/autolinks.js';

const html = (md: string) => renderMarkdown(md).html;
const texts = (s: string) => findLinks(s).map((l) => l.text);

test('a link starts at the start, after whitespace, after \' " ( , : < or a non-ASCII character', () => {
  assert.deepEqual(texts('a foo.com b'), ['foo.com']);
  assert.deepEqual(texts('javascript:foo.com'), ['foo.com']);
  assert.deepEqual(texts('sorry,http://example.com/'), ['http://example.com/']);
  assert.deepEqual(texts('<a@b.com>'), ['a@b.com']);
  assert.deepEqual(texts('日本語https://google.com'), ['https://google.com']);
  assert.deepEqual(texts('xhttp://a.com /foo.com javascript://foo.com'), []);
});

test('a link ends before !:;?),.\'"> and then whitespace or the end, or not at all', () => {
  assert.deepEqual(texts('at https://zulip.com/api. Check it!'), ['https://zulip.com/api']);
  assert.deepEqual(texts('foo.com?! bar.org") x'), ['foo.com', 'bar.org']);
  assert.deepEqual(texts('<script src="http://xx.com/xss.js"<b>'), []);
  assert.deepEqual(texts('a@b.com/foo'), []);
  assert.deepEqual(texts('http://x.com*'), []);
});

test('domains need a known top-level domain, not a file extension; paths and queries balance parentheses', () => {
  assert.deepEqual(texts('readme.md main.py x.zip www.zulip.com/foo ucl.ac.uk a.commandstuff() love...it'), ['www.zulip.com/foo', 'ucl.ac.uk']);
  assert.deepEqual(texts('(http://en.wikipedia.org/wiki/Each-way_(bet))'), ['http://en.wikipedia.org/wiki/Each-way_(bet)']);
  assert.deepEqual(texts('zulip.us/(a_(b_(c)_d)_e)_f).'), ['zulip.us/(a_(b_(c)_d)_e)_f']);
  assert.deepEqual(texts('https://podcasts.google.com?feed=abc. https://google.com?'), ['https://podcasts.google.com?feed=abc', 'https://google.com']);
  // Eight levels of parentheses are more than Zulip's pattern takes: the link stops before them.
  assert.deepEqual(texts(`x.com/${'('.repeat(8)}a${')'.repeat(8)}`), []);
  assert.deepEqual(texts(`x.com/${'('.repeat(7)}a${')'.repeat(7)}`), [`x.com/${'('.repeat(7)}a${')'.repeat(7)}`]);
});

test('hrefs: as typed with a scheme, http:// before a domain and the desktop-app schemes, mailto: before an address', () => {
  assert.equal(html('go to views.org please'), '<p>go to <a href="http://views.org">views.org</a> please</p>');
  assert.equal(html('a.b-c@d.co.uk.'), '<p><a href="mailto:a.b-c@d.co.uk">a.b-c@d.co.uk</a>.</p>');
  assert.equal(html('zotero://select/items/X1'), '<p><a href="http://zotero://select/items/X1">zotero://select/items/X1</a></p>');
  assert.equal(html('bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT'), '<p><a href="bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT">bitcoin:1BoatSLRHtKNngkdXEeobR76b53LETtpyT</a></p>');
  assert.equal(html('обычный.рф/путь'), '<p><a href="http://обычный.рф/путь">обычный.рф/путь</a></p>');
  assert.equal(html('itms://itunes.com/apps/x ftp://x.com'), '<p>itms://itunes.com/apps/x ftp://x.com</p>');
});

test('the link is found on the raw text, before emphasis, as Zulip runs its link pattern first', () => {
  assert.equal(html('see foo.com/a*b*c and x.com/a_b_'), '<p>see <a href="http://foo.com/a*b*c">foo.com/a*b*c</a> and <a href="http://x.com/a_b_">x.com/a_b_</a></p>');
  assert.equal(html('**see http://x.com now**'), '<p><strong>see <a href="http://x.com">http://x.com</a> now</strong></p>');
  // Zulip's pattern sees the asterisks around the URL, so it does not link it.
  assert.equal(html('**http://x.com**'), '<p><strong>http://x.com</strong></p>');
  assert.equal(html('`foo.com` [foo.com](http://y.com)'), '<p><code>foo.com</code> <a href="http://y.com">foo.com</a></p>');
});

test('topic_links: the first link of each piece between " !;),\'" characters, https:// before one without a scheme', () => {
  assert.deepEqual(topicLinks('see foo.com/x, mail a@b.com (https://zulip.com/api) zotero://x/y', []), [
    { text: 'foo.com/x', url: 'https://foo.com/x' },
    { text: 'a@b.com', url: 'https://a@b.com' },
    { text: 'https://zulip.com/api', url: 'https://zulip.com/api' },
    { text: 'zotero://x/y', url: 'zotero://x/y' },
  ]);
});

test('texts built against backtracking finish in time linear in their length', { timeout: 30_000 }, () => {
  const hostile = [
    '(a.com/'.repeat(5_000),
    'a.'.repeat(20_000) + 'com!',
    '日.'.repeat(10_000),
    '日'.repeat(20_000) + '.com/' + '('.repeat(7) + ')',
    'http://' + 'a.'.repeat(10_000) + '(',
    'a@'.repeat(10_000) + 'b.c',
    ',a.com/'.repeat(5_000),
    'x.com/' + '('.repeat(10_000) + ')'.repeat(10_000) + '.',
    ':a.b'.repeat(10_000),
    'https://a.com?' + '?('.repeat(10_000),
    'x.com/' + '()'.repeat(10_000) + ')))))' + '"'.repeat(100),
  ];
  // Each takes a few milliseconds; a quadratic detector takes seconds on the slowest of them.
  // Warmed up first on a tenth of each (compiling the code, loading the lists of top-level
  // domains and emoji): cold, under CI's load, that start alone took seconds.
  for (const text of hostile) {
    findLinks(text.slice(0, text.length / 10));
    renderMarkdown(text.slice(0, text.length / 10));
  }
  const started = process.hrtime.bigint();
  for (const text of hostile) {
    findLinks(text);
    renderMarkdown(text);
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.ok(ms < 3_000, `${ms} ms`);
});
