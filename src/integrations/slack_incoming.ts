// Slack-compatible incoming webhooks: `text`, Block Kit `blocks` and legacy `attachments`, with
// Slack's mrkdwn (<url|label> links, *bold*, _italic_) turned into Zulip Markdown.
import { globalTimeFromSeconds, MalformedPayload, Wild, type Integration } from './core.js';

const BLOCK_TYPES = ['actions', 'context', 'call', 'contact_card', 'condition', 'divider', 'file', 'header', 'image', 'input', 'section', 'table', 'rich_text'];

function oneOf(w: Wild, allowed: string[]): string {
  const v = w.str();
  if (!allowed.includes(v)) throw new MalformedPayload(`Invalid ${w.path}`);
  return v;
}

function textBlock(w: Wild, plainOnly = false): string {
  oneOf(w.at('type'), plainOnly ? ['plain_text'] : ['plain_text', 'mrkdwn']);
  return w.s('text');
}

function url(w: Wild): string {
  const v = w.str();
  if (!/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(v)) throw new MalformedPayload(`${w.path} is not a URL`);
  return v;
}

const joinPieces = (pieces: string[]) =>
  pieces
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .join('\n\n');

function renderElement(e: Wild): string {
  if (e.s('type') !== 'image') return '';
  return `[${e.s('alt_text')}](${url(e.at('image_url'))})`;
}

function renderBlock(block: Wild): string {
  const type = oneOf(block.at('type'), BLOCK_TYPES);
  if (type === 'context' && block.opt('elements')?.truthy) {
    const pieces: string[] = [];
    for (const e of block.at('elements').list()) {
      const t = oneOf(e.at('type'), ['image', 'plain_text', 'mrkdwn']);
      pieces.push(t === 'image' ? renderElement(e) : textBlock(e));
    }
    return joinPieces(pieces);
  }
  if (type === 'divider') return '----';
  if (type === 'header') return '## ' + textBlock(block.at('text'), true);
  if (type === 'image') {
    const imageUrl = url(block.at('image_url'));
    let alt = block.s('alt_text');
    if (block.has('title')) alt = textBlock(block.at('title'), true);
    return `[${alt}](${imageUrl})`;
  }
  if (type === 'section') {
    const pieces: string[] = [];
    if (block.has('text')) pieces.push(textBlock(block.at('text')));
    if (block.has('accessory')) pieces.push(renderElement(block.at('accessory')));
    if (block.has('fields')) {
      const fields = block.at('fields').list().map((f) => textBlock(f));
      if (fields.length === 1) pieces.push(fields[0]!);
      else {
        // Table cells cannot hold newlines or pipes; Slack shows two columns without a header.
        const cells = fields.map((f) => f.replace(/\n/g, ' ').replace(/\|/g, ' '));
        let table = '| | |\n|-|-|\n';
        for (let i = 0; i < cells.length; i += 2) table += `| ${cells[i]} | ${cells[i + 1] ?? ''} |\n`;
        pieces.push(table);
      }
    }
    return joinPieces(pieces);
  }
  return '';
}

function renderAttachment(a: Wild): string {
  const pieces: string[] = [];
  const title = a.opt('title');
  if (title?.truthy) {
    const link = a.opt('title_link');
    pieces.push(link?.truthy ? `## [${title.str()}](${url(link)})` : `## ${title.str()}`);
  }
  for (const key of ['pretext', 'text']) {
    const v = a.opt(key);
    if (v?.truthy) pieces.push(v.str());
  }
  if (a.has('fields')) {
    const fields: string[] = [];
    for (const f of a.at('fields').list()) {
      const t = f.opt('title');
      const v = f.opt('value');
      if (t?.truthy && v?.truthy) fields.push(`*${t.str()}*: ${v.str()}`);
      else if (t?.truthy) fields.push(`*${t.str()}*`);
      else if (v?.truthy) fields.push(v.str());
    }
    pieces.push(fields.join('\n'));
  }
  if (a.opt('blocks')?.truthy) pieces.push(...a.at('blocks').list().map(renderBlock));
  const image = a.opt('image_url');
  if (image?.truthy) pieces.push(`[](${url(image)})`);
  const footer = a.opt('footer');
  if (footer?.truthy) pieces.push(footer.str());
  const ts = a.opt('ts');
  if (ts?.truthy) {
    // Slack sometimes sends the timestamp as a string holding a float.
    const seconds = typeof ts.value === 'string' ? Number(ts.value) : ts.int();
    if (!Number.isFinite(seconds)) throw new MalformedPayload(`${ts.path} is not an integer`);
    pieces.push(globalTimeFromSeconds(Math.trunc(seconds)));
  }
  return joinPieces(pieces);
}

// Slack links: <https://example.com|label> and <https://example.com>; mail links <mailto:a@b.c|a@b.c>.
const LINK = /<(?:http:\/\/www\.|https:\/\/www\.|http:\/\/|https:\/\/|ftp:\/\/)?[a-z0-9]+(?:[-.][a-z0-9]+)*\.[a-z]{2,63}(?::[0-9]{1,5})?(?:\/[^>]*)?\|?(?:\|[^>]+)?>/g;
const MAILTO = /<((?:mailto:)?[\w.-]+@[\w.-]+(?:\.\w+)+)\|?(?:[\w.-]+@[\w.-]+(?:\.\w+)+)?>/g;

export function replaceLinks(text: string): string {
  text = text.replace(LINK, (m) => {
    const parts = m.slice(1, -1);
    const pipe = parts.indexOf('|');
    return pipe < 0 ? parts : `[${parts.slice(pipe + 1)}](${parts.slice(0, pipe)})`;
  });
  return text.replace(MAILTO, '$1');
}

/**
 * Slack's *bold*, ~strike~ and _italic_ become **bold**, ~~strike~~ and *italic*, only where
 * Slack formats them: delimited by punctuation, spaces, symbols or line ends, not mid-word.
 */
function slackSyntax(marker: string): RegExp {
  const m = marker === '*' ? '\\*' : marker;
  return new RegExp(
    `((?![${m}\`@\\\\\\p{Pf}\\p{Pe}])[\\p{P}\\p{Zs}\\p{S}]|^)${m}([^${m}]+)${m}(?![${m}\`@\\\\\\p{Pi}\\p{Ps}])(?=[\\p{P}\\p{Zs}\\p{S}]|$)`,
    'gmu',
  );
}
const BOLD = slackSyntax('*');
const STRIKE = slackSyntax('~');
const ITALIC = slackSyntax('_');

export function replaceFormatting(text: string): string {
  text = text.replace(BOLD, '$1**$2**');
  text = text.replace(STRIKE, '$1~~$2~~');
  return text.replace(ITALIC, '$1*$2*');
}

export const slackIncoming: Integration = {
  name: 'slack_incoming',
  displayName: 'SlackIncoming',
  // Slack's clients read {ok: true} and, on failure, {ok: false, error}.
  successData: { ok: true },
  errorBody: (msg) => ({ ok: false, error: msg }),
  handle(req) {
    const p = new Wild(req.body);
    if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) throw new MalformedPayload('Malformed payload');
    let topic: string | undefined;
    if (p.has('channel')) topic = p.s('channel').replace(/^[@#]/, '');
    const pieces: string[] = [];
    if (p.opt('blocks')?.truthy) pieces.push(...p.at('blocks').list().map(renderBlock));
    if (p.opt('attachments')?.truthy) pieces.push(...p.at('attachments').list().map(renderAttachment));
    let body = joinPieces(pieces);
    if (body === '' && p.opt('text')?.truthy) {
      const emoji = p.opt('icon_emoji');
      if (emoji?.truthy) body = emoji.str() + ' ';
      body = (body + p.s('text')).trim();
    }
    if (body === '') return [];
    return [{ topic: topic ?? '(no topic)', content: replaceFormatting(replaceLinks(body).trim()) }];
  },
};
