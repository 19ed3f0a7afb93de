// Slack-compatible incoming webhooks: `text`, Block Kit `blocks` and legacy `attachments`, with
// Slack's mrkdwn (<url|label> links, *bold*, _italic_) turned into Zulip Markdown.
import { MalformedPayload, Wild, type Integration } from './core.js';

const BLOCK_TYPES = ['actions', 'context', 'divider', 'header', 'image', 'input', 'section'];

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
  if (ts?.truthy) pieces.push(`<time:${ts.int()}>`);
  return joinPieces(pieces);
}

export function replaceLinks(text: string): string {
  return text.replace(/<(\w+?:\/\/.*?)\|(.*?)>/g, '[$2]($1)');
}

export function replaceFormatting(text: string): string {
  // Slack's *bold* is Zulip's **bold**; Slack's _italic_ is Zulip's *italic*.
  text = text.replace(/([^\w]|^)\*(?!\s+)([^*\n]+)(?<!\s)\*((?=[^\w])|$)/gm, '$1**$2**$3');
  return text.replace(/([^\w]|^)_(?!\s+)([^_\n]+)(?<!\s)_((?=[^\w])|$)/gm, '$1*$2*$3');
}

export const slackIncoming: Integration = {
  name: 'slack_incoming',
  displayName: 'SlackIncoming',
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
