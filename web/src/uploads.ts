// Uploaded files shown inside rendered messages (images, videos, audio). The browser loads those
// itself, so it cannot send the Authorization header; putting the API key in their address would
// leak it to history, logs and anyone shown the page's markup. Instead the markup's upload sources
// are parked in data-upload-src, and each is swapped for the minute-long temporary URL that
// GET /user_uploads/{realm_id}/{path} returns (Zulip's public API for exactly this), fetched with
// the key in the header.
import { api } from './api';

const TEMPORARY_URL_REUSE_MS = 45_000; // the server's URLs live 60 s; leave room for slow loads
const known = new Map<string, { url: Promise<string>; at: number }>();

/** Parks the source of every upload in the markup so the browser does not fetch it without credentials. */
export function deferUploadSources(html: string): string {
  if (!html.includes('/user_uploads/')) return html;
  return html.replace(/(<(?:img|video|audio|source)\b[^>]*?\s)src="(\/user_uploads\/[^"]+)"/g, '$1data-upload-src="$2"');
}

function temporaryUrl(path: string): Promise<string> {
  const hit = known.get(path);
  if (hit && Date.now() - hit.at < TEMPORARY_URL_REUSE_MS) return hit.url;
  const url = api.get<{ url: string }>(path).then((r) => r.url);
  known.set(path, { url, at: Date.now() });
  url.catch(() => known.delete(path));
  return url;
}

function resolve(el: Element): void {
  const path = el.getAttribute('data-upload-src');
  if (!path) return;
  el.removeAttribute('data-upload-src');
  temporaryUrl(path).then(
    (url) => el.setAttribute('src', url),
    () => el.setAttribute('aria-label', 'This file does not exist or has been deleted.'),
  );
}

/** Watches the page for parked upload sources (messages, edit history, previews) and loads them. */
export function watchUploads(root: HTMLElement): void {
  const scan = (node: Node) => {
    if (!(node instanceof Element)) return;
    if (node.hasAttribute('data-upload-src')) resolve(node);
    node.querySelectorAll('[data-upload-src]').forEach(resolve);
  };
  scan(root);
  new MutationObserver((records) => {
    for (const r of records) r.addedNodes.forEach(scan);
  }).observe(root, { childList: true, subtree: true });
}
