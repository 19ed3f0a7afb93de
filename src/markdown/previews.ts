// Inline previews as Zulip marks them up, decided from the URL alone (no network access at render
// time): a link to an image or a video gets a preview after the block that holds it (inside the
// list item or the spoiler when it is in one; none inside quotes), ![text](audio.mp3) becomes an
// audio player. Remote media load through the camo proxy when one is configured.
import { createHmac } from 'node:crypto';
import type { StateCore, Token } from 'markdown-it';
import { envOf, escapeHtml, type RenderEnv } from './env.js';
import { SPOILER_CONTENT_CLOSE, SPOILER_CONTENT_OPEN } from './fences.js';

const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];
const VIDEO_EXTENSIONS = ['.mp4', '.webm'];
const AUDIO_EXTENSIONS = ['.mp3', '.m4a', '.wav', '.ogg', '.oga', '.opus', '.flac', '.aac', '.weba'];
/** Previews per message, as a bound on the markup one message can add. */
const MAX_PREVIEWS = 24;

type MediaKind = 'image' | 'video' | 'audio';

/** A file uploaded to this organization, as the renderer writes its link (relative). */
function isUpload(href: string): boolean {
  return href.startsWith('/user_uploads/') || href.startsWith('user_uploads/');
}

function mediaKind(href: string): MediaKind | null {
  let url: URL;
  try {
    // Uploads are linked relative to the organization; their names still tell the kind.
    url = new URL(href, isUpload(href) ? 'http://uploads.invalid/' : undefined);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const path = url.pathname.toLowerCase();
  if (IMAGE_EXTENSIONS.some((ext) => path.endsWith(ext))) return 'image';
  if (VIDEO_EXTENSIONS.some((ext) => path.endsWith(ext))) return 'video';
  if (AUDIO_EXTENSIONS.some((ext) => path.endsWith(ext))) return 'audio';
  return null;
}

/** The proxied address of a remote file: camo's HMAC-SHA1 digest and the hex-encoded URL. */
export function camoUrl(env: Pick<RenderEnv, 'camo'>, url: string): string {
  if (!env.camo) return url;
  const digest = createHmac('sha1', env.camo.key).update(url).digest('hex');
  return `${env.camo.url}${digest}/${Buffer.from(url).toString('hex')}`;
}

function previewHtml(env: RenderEnv, kind: MediaKind, href: string, title: string | null): string {
  const titleAttr = title ? ` title="${escapeHtml(title)}"` : '';
  // Uploads are served by this server (to those who may read them), never through camo.
  const src = escapeHtml(isUpload(href) ? href : camoUrl(env, href));
  if (kind === 'video') {
    return `<div class="message_inline_image message_inline_video"><a href="${escapeHtml(href)}"${titleAttr}><video preload="metadata" src="${src}"></video></a></div>`;
  }
  return `<div class="message_inline_image"><a href="${escapeHtml(href)}"${titleAttr}><img src="${src}"></a></div>`;
}

/** The visible text of a link: the tokens between link_open at index i and its link_close. */
function linkText(children: Token[], i: number): string {
  let text = '';
  for (let j = i + 1; j < children.length && children[j]!.type !== 'link_close'; j++) text += children[j]!.content;
  return text;
}

/** The previews an inline token's links call for (each URL once per message). */
function previewsIn(env: RenderEnv, inline: Token, seen: Set<string>): string[] {
  const out: string[] = [];
  const children = inline.children ?? [];
  for (let i = 0; i < children.length; i++) {
    const tok = children[i]!;
    if (tok.type !== 'link_open') continue;
    const href = String(tok.attrGet('href') ?? '');
    const kind = mediaKind(href);
    if (kind !== 'image' && kind !== 'video') continue;
    if (seen.has(href) || seen.size >= MAX_PREVIEWS) continue;
    seen.add(href);
    const text = linkText(children, i);
    out.push(previewHtml(env, kind, href, text && text !== href ? text : null));
  }
  return out;
}

/** Renderer for ![text](url): an audio player for audio files, otherwise a plain link. */
export function audioOrLink(env: RenderEnv, src: string, text: string): string {
  if (mediaKind(src) === 'audio') {
    const titleAttr = text ? ` title="${escapeHtml(text)}"` : '';
    return `<audio controls data-original-url="${escapeHtml(src)}" preload="metadata" src="${escapeHtml(camoUrl(env, src))}"${titleAttr}></audio>`;
  }
  return `<a href="${escapeHtml(src)}">${escapeHtml(text || src)}</a>`;
}

/** An inline that is one autolinked URL and nothing else. */
function isBareLink(inline: Token): boolean {
  const c = inline.children ?? [];
  return c.length === 3 && c[0]!.type === 'link_open' && c[1]!.type === 'text' && c[2]!.type === 'link_close' && c[1]!.content === c[0]!.attrGet('href');
}

interface Container {
  kind: 'root' | 'quote' | 'item' | 'spoiler';
  /** Previews waiting for the end of the current top-level block of this container. */
  pending: string[];
}

/** Core rule: inserts image and video previews where Zulip puts them. */
export function previewRule(state: StateCore): void {
  const env = envOf(state);
  if (!env.previews) return;
  const seen = new Set<string>();
  const out: Token[] = [];
  const stack: Container[] = [{ kind: 'root', pending: [] }];
  const flush = (c: Container) => {
    if (c.pending.length === 0) return;
    const html = new state.Token('html_block', '', 0);
    html.content = c.pending.join('');
    c.pending = [];
    out.push(html);
  };
  let blockDepth = 0;
  let dropClose = false;
  for (const tok of state.tokens) {
    const top = stack[stack.length - 1]!;
    if (dropClose && tok.type === 'paragraph_close') {
      // The paragraph held only a bare link: its preview stands in for it.
      dropClose = false;
      blockDepth--;
      if (blockDepth === 0) flush(top);
      continue;
    }
    const marker = (tok.meta as { marker?: string } | null)?.marker;
    if (marker === SPOILER_CONTENT_CLOSE) {
      flush(top);
      stack.pop();
    }
    out.push(tok);
    if (marker === SPOILER_CONTENT_OPEN) stack.push({ kind: 'spoiler', pending: [] });
    if (tok.type === 'blockquote_open') stack.push({ kind: 'quote', pending: [] });
    else if (tok.type === 'list_item_open') stack.push({ kind: 'item', pending: [] });
    else if (tok.type === 'blockquote_close' || tok.type === 'list_item_close') stack.pop();
    else if (tok.type === 'inline' && tok.children && top.kind !== 'quote') {
      const previews = previewsIn(env, tok, seen);
      if (previews.length === 0) continue;
      if (top.kind === 'item') {
        const html = new state.Token('html_inline', '', 0);
        html.content = previews.join('');
        tok.children.push(html);
      } else {
        top.pending.push(...previews);
        if (isBareLink(tok) && out[out.length - 2]?.type === 'paragraph_open') {
          out.splice(out.length - 2, 2);
          dropClose = true;
        }
      }
    }
    // A top-level block of a root or spoiler container ends: its previews follow it.
    blockDepth += tok.nesting;
    const current = stack[stack.length - 1]!;
    if ((current.kind === 'root' || current.kind === 'spoiler') && tok.nesting <= 0 && blockDepth === 0) flush(current);
  }
  flush(stack[0]!);
  state.tokens = out;
}
