// Uploaded files on local disk: Zulip's path shape and filename rules, the headers a file is
// served with, and the signed short-lived URLs of GET /api/v1/user_uploads/….
import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { constantTimeEqual } from './secrets.js';
import { mkdir, rename, rm, rmdir, writeFile, readFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';

/** Most filesystems allow 255 bytes per path component; the sanitized name is the last one. */
const MAX_FILE_NAME_BYTES = 255;

/** Cuts a name to at most `max` UTF-8 bytes, keeping its extension when that leaves room. */
function truncateFileName(name: string, max: number): string {
  if (Buffer.byteLength(name) <= max) return name;
  const dot = name.lastIndexOf('.');
  let stem = dot > 0 ? name.slice(0, dot) : name;
  let ext = dot > 0 ? name.slice(dot) : '';
  if (Buffer.byteLength(ext) >= max) {
    stem = name;
    ext = '';
  }
  let budget = max - Buffer.byteLength(ext);
  let out = '';
  for (const ch of stem) {
    const n = Buffer.byteLength(ch);
    if (n > budget) break;
    out += ch;
    budget -= n;
  }
  return out + ext;
}

/**
 * A filename safe on disk and in a URL, by Zulip's rules: NFKC-normalised, only word characters
 * (any script), whitespace, '.', '-' and '_' kept, runs of spaces and dashes become one '-',
 * at most 255 bytes; nothing usable left gives "uploaded-file".
 */
export function sanitizeFileName(value: string): string {
  let v = value.normalize('NFKC');
  v = v.replace(/[^\p{L}\p{N}_\s.-]/gu, '').trim();
  v = v.replace(/[-\s]+/gu, '-');
  v = truncateFileName(v, MAX_FILE_NAME_BYTES);
  if (v === '' || v === '.' || v === '..') return 'uploaded-file';
  return v;
}

/** `{realm_id}/{one random byte in hex}/{24 random URL-safe characters}/{sanitized name}`. */
export function newPathId(realmId: number, sanitizedName: string): string {
  return [String(realmId), randomInt(0, 256).toString(16), randomBytes(18).toString('base64url'), sanitizedName].join('/');
}

/** The file a path id names, refused if it would leave the uploads directory. */
export function filePath(uploadsDir: string, pathId: string): string {
  const root = resolve(uploadsDir, 'files');
  const full = resolve(root, pathId);
  if (!full.startsWith(root + sep)) throw new Error(`path ${JSON.stringify(pathId)} escapes the uploads directory`);
  return full;
}

export async function storeFile(uploadsDir: string, pathId: string, data: Buffer): Promise<void> {
  const full = filePath(uploadsDir, pathId);
  await mkdir(dirname(full), { recursive: true });
  await writeFile(full, data, { flag: 'wx' });
}

/** Moves an upload's temporary file (in the same uploads folder) to where the path id says. */
export async function storeUploadedFile(uploadsDir: string, pathId: string, temporaryPath: string): Promise<void> {
  const full = filePath(uploadsDir, pathId);
  await mkdir(dirname(full), { recursive: true });
  await rename(temporaryPath, full);
}

export async function readStoredFile(uploadsDir: string, pathId: string): Promise<Buffer | undefined> {
  try {
    return await readFile(filePath(uploadsDir, pathId));
  } catch {
    return undefined;
  }
}

/** Removes the file and the directories above it that are left empty. */
export async function deleteStoredFile(uploadsDir: string, pathId: string): Promise<void> {
  const root = resolve(uploadsDir, 'files');
  const full = filePath(uploadsDir, pathId);
  await rm(full, { force: true });
  for (let dir = dirname(full); dir.startsWith(root + sep); dir = dirname(dir)) {
    try {
      await rmdir(dir);
    } catch {
      break;
    }
  }
}

/** Types Zulip lets a browser show in place; everything else is served as a download. */
const INLINE_TYPES = new Set([
  'application/pdf',
  'audio/aac',
  'audio/flac',
  'audio/mp4',
  'audio/mpeg',
  'audio/wav',
  'audio/webm',
  'image/apng',
  'image/avif',
  'image/gif',
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/svg+xml',
  'text/plain',
  'video/mp4',
  'video/webm',
]);

export function bareType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

export function servedInline(contentType: string): boolean {
  return INLINE_TYPES.has(bareType(contentType));
}

/** RFC 6266 Content-Disposition: a quoted ASCII filename, or RFC 8187 UTF-8 for anything else. */
export function contentDisposition(inline: boolean, fileName: string): string {
  const kind = inline ? 'inline' : 'attachment';
  // Printable ASCII goes in quotes; anything else (control characters too) percent-encoded.
  if (/^[\x20-\x7e]*$/.test(fileName)) return `${kind}; filename="${fileName.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  return `${kind}; filename*=utf-8''${encoded}`;
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  json: 'application/json',
  xml: 'application/xml',
  pdf: 'application/pdf',
  zip: 'application/zip',
  gz: 'application/gzip',
  tar: 'application/x-tar',
  png: 'image/png',
  apng: 'image/apng',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  svg: 'image/svg+xml',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  weba: 'audio/webm',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** The type a client declared, else a guess from the file's extension (Zulip's fallback order). */
export function uploadContentType(declared: string, fileName: string, text: { ascii: boolean; utf8: boolean }): string {
  let type = declared.trim();
  if (!type || type.toLowerCase() === 'application/octet-stream') {
    const ext = /\.([A-Za-z0-9]+)$/.exec(fileName)?.[1]?.toLowerCase();
    type = (ext && TYPES_BY_EXTENSION[ext]) || 'application/octet-stream';
  }
  // Plain text shown inline needs its charset: say which one when the bytes make it certain.
  if (bareType(type) === 'text/plain' && !/;\s*charset=/i.test(type)) {
    if (text.ascii) type += '; charset=ascii';
    else if (text.utf8) type += '; charset=utf-8';
  }
  return type;
}

/** Seconds a temporary URL works (Zulip's SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS default). */
export const TEMPORARY_URL_SECONDS = 60;

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url');
}

/** `/user_uploads/temporary/{token}/{filename}`: the token carries the path id, an expiry and a signature. */
export function temporaryUrl(pathId: string, secret: string, nowSeconds: number): string {
  const payload = `${pathId}:${nowSeconds + TEMPORARY_URL_SECONDS}`;
  const token = Buffer.from(`${payload}:${sign(secret, payload)}`).toString('hex').toUpperCase();
  const name = pathId.split('/').pop()!;
  return `/user_uploads/temporary/${token}/${encodeURIComponent(name)}`;
}

/** The path id a token names, before its signature is checked (which needs the attachment's secret). */
export function parseTemporaryToken(token: string): { pathId: string; expires: number; signature: string } | undefined {
  if (!/^(?:[0-9A-Fa-f]{2})+$/.test(token)) return undefined;
  const text = Buffer.from(token, 'hex').toString('utf8');
  const m = /^(.+):(\d{1,12}):([A-Za-z0-9_-]+)$/.exec(text);
  if (!m) return undefined;
  return { pathId: m[1]!, expires: Number(m[2]), signature: m[3]! };
}

export function temporaryTokenValid(t: { pathId: string; expires: number; signature: string }, secret: string, nowSeconds: number): boolean {
  if (t.expires < nowSeconds) return false;
  return constantTimeEqual(sign(secret, `${t.pathId}:${t.expires}`), t.signature);
}

/** A fresh secret for an attachment's temporary URLs. */
export function newUrlSecret(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The attachment paths a rendered message links: hrefs and srcs under /user_uploads/ on this
 * server (relative, or absolute with the server's own address). Temporary and thumbnail URLs
 * are not attachments.
 */
export function linkedUploadPaths(html: string, externalUrl: string): string[] {
  if (!html.includes('user_uploads/')) return [];
  const out = new Set<string>();
  const re = /\s(?:href|src)="([^"]*)"/g;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    let url = m[1]!.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    if (url.startsWith(externalUrl + '/')) url = url.slice(externalUrl.length);
    let rest: string;
    if (url.startsWith('/user_uploads/')) rest = url.slice('/user_uploads/'.length);
    else if (url.startsWith('user_uploads/')) rest = url.slice('user_uploads/'.length);
    else continue;
    rest = rest.split(/[?#]/)[0]!;
    if (!/^\d+\//.test(rest)) continue;
    out.add(rest);
    try {
      out.add(decodeURIComponent(rest));
    } catch {
      /* not percent-encoded text: the raw form is enough */
    }
  }
  return [...out];
}

/** A file part of a multipart/form-data request. */
export interface UploadedFile {
  /** The form field the file came in (`file`, `filename`, or anything a client chose). */
  field: string;
  filename: string;
  mimeType: string;
  /** A temporary file holding the bytes (removed after the response unless moved with storeUploadedFile). */
  path: string;
  size: number;
  /** Whether every byte is ASCII, and whether the bytes are valid UTF-8 (for a text file's charset). */
  ascii: boolean;
  utf8: boolean;
}
