// multipart/form-data bodies. Fields become ordinary parameters on every route; file parts are
// accepted only by the routes that declare they take files (POST /user_uploads, custom emoji),
// and those are streamed to a temporary file on disk, never held in memory. Every limit is checked
// while the body streams in, and the request is refused the moment one is passed: the rest of the
// body is never read (the connection is closed after the answer).
//
// Credentials are checked before this parser runs (the router authenticates in an onRequest hook),
// so an anonymous client cannot make the server read a body on a route that needs a login.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Busboy } from '@fastify/busboy';
import { isAscii } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError, BadRequest } from '../errors.js';
import type { UploadedFile } from '../lib/uploads.js';

const MAX_FIELDS = 100;

/** What a route that takes files declares (in its Fastify route config, under `confabFiles`). */
export interface FileRouteSpec {
  /** The largest file the route accepts, for this request (the organization's limit). */
  maxBytes(request: FastifyRequest): number;
  /** The error for a file past `maxBytes`. */
  tooLarge(request: FastifyRequest): ApiError;
  /** How many file parts the route takes, and the error for one more. */
  maxFiles: number;
  tooMany: () => ApiError;
}

export class PayloadTooLarge extends ApiError {
  constructor() {
    super('Request body too large', 'BAD_REQUEST', 413);
  }
}

const FILES = Symbol('uploadedFiles');
const TEMP_FILES = Symbol('temporaryFiles');

type WithTemp = { [TEMP_FILES]?: string[] };

export function uploadedFiles(request: FastifyRequest): UploadedFile[] {
  const body = request.body as { [FILES]?: UploadedFile[] } | undefined;
  return body?.[FILES] ?? [];
}

function fileSpec(request: FastifyRequest): FileRouteSpec | undefined {
  return (request.routeOptions.config as { confabFiles?: FileRouteSpec } | undefined)?.confabFiles;
}

/** Removes the temporary files of a request that the route did not move into place. */
async function removeTemporaryFiles(request: FastifyRequest): Promise<void> {
  const list = (request as WithTemp)[TEMP_FILES];
  if (!list?.length) return;
  (request as WithTemp)[TEMP_FILES] = [];
  await Promise.all(list.map((p) => rm(p, { force: true }).catch(() => undefined)));
}

export function registerMultipart(app: FastifyInstance, uploadsDir: string, defaultBodyLimit: number): void {
  const tempDir = join(uploadsDir, 'tmp');
  app.addHook('onResponse', async (request) => removeTemporaryFiles(request));
  app.addHook('onRequestAbort', async (request) => removeTemporaryFiles(request));

  app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    const spec = fileSpec(request);
    const maxFileBytes = spec ? spec.maxBytes(request) : 0;
    // Fields share the route's ordinary body limit; a file route may add its files on top.
    const fieldLimit = request.routeOptions.bodyLimit ?? defaultBodyLimit;
    const totalLimit = fieldLimit + (spec ? spec.maxFiles * maxFileBytes : 0);
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > totalLimit) {
      // Refused on the header alone, before a byte of the body is read.
      done(spec ? spec.tooLarge(request) : new PayloadTooLarge(), undefined);
      return;
    }
    let bb: ReturnType<typeof Busboy>;
    try {
      bb = Busboy({
        headers: request.headers as { 'content-type': string },
        // One byte past the limit is enough to know the file is too large.
        limits: { fileSize: maxFileBytes + 1, files: spec ? spec.maxFiles + 1 : 1, fields: MAX_FIELDS, fieldSize: fieldLimit },
      });
    } catch {
      done(new BadRequest('Malformed multipart body'), undefined);
      return;
    }
    const fields: Record<string | symbol, unknown> = {};
    const files: UploadedFile[] = [];
    const writes: Array<Promise<void>> = [];
    const open = new Set<WriteStream>();
    let settled = false;
    let received = 0;
    const fail = (err: ApiError) => {
      if (settled) return;
      settled = true;
      // Stop reading: the rest of the body stays unread and the connection closes after the answer.
      payload.unpipe(bb);
      payload.pause();
      for (const s of open) s.destroy();
      bb.removeAllListeners('file');
      bb.on('error', () => undefined);
      void removeTemporaryFiles(request);
      done(err, undefined);
    };
    payload.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > totalLimit) fail(spec ? spec.tooLarge(request) : new PayloadTooLarge());
    });
    bb.on('field', (name, value, _nameTruncated, valueTruncated) => {
      if (valueTruncated) return fail(new PayloadTooLarge());
      fields[name] = value;
    });
    bb.on('file', (field, stream, filename, _encoding, mimeType) => {
      if (settled) return stream.resume();
      if (!spec) return fail(new BadRequest('This endpoint does not accept file uploads'));
      if (files.length >= spec.maxFiles) return fail(spec.tooMany());
      mkdirSync(tempDir, { recursive: true });
      const path = join(tempDir, `${process.pid}-${randomBytes(12).toString('hex')}`);
      ((request as WithTemp)[TEMP_FILES] ??= []).push(path);
      const file: UploadedFile = { field, filename: filename ?? '', mimeType: mimeType || 'application/octet-stream', path, size: 0, ascii: true, utf8: true };
      files.push(file);
      // Whether the bytes are ASCII or UTF-8 is decided as they pass (text files get a charset).
      const decoder = new TextDecoder('utf-8', { fatal: true });
      const out = createWriteStream(path, { flags: 'wx' });
      open.add(out);
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length;
        if (file.ascii && !isAscii(chunk)) file.ascii = false;
        if (!file.ascii && file.utf8) {
          try {
            decoder.decode(chunk, { stream: true });
          } catch {
            file.utf8 = false;
          }
        }
      });
      stream.on('limit', () => fail(spec.tooLarge(request)));
      const written = new Promise<void>((resolve, reject) => {
        out.on('finish', () => {
          open.delete(out);
          if (file.utf8 && !file.ascii) {
            try {
              decoder.decode();
            } catch {
              file.utf8 = false;
            }
          }
          resolve();
        });
        out.on('error', reject);
      });
      // A write cut short by a refusal (the stream destroyed) is no failure of its own.
      written.catch(() => undefined);
      writes.push(written);
      stream.pipe(out);
    });
    bb.on('filesLimit', () => fail(spec ? spec.tooMany() : new BadRequest('This endpoint does not accept file uploads')));
    bb.on('fieldsLimit', () => fail(new PayloadTooLarge()));
    bb.on('error', () => fail(new BadRequest('Malformed multipart body')));
    bb.on('finish', () => {
      if (settled) return;
      Promise.all(writes).then(
        () => {
          if (settled) return;
          settled = true;
          fields[FILES] = files;
          done(null, fields);
        },
        () => fail(new ApiError('Could not store the uploaded file', 'BAD_REQUEST', 500)),
      );
    });
    payload.on('error', () => fail(new BadRequest('Malformed multipart body')));
    payload.pipe(bb);
  });
}
