// multipart/form-data bodies (file uploads: POST /user_uploads, custom emoji, avatars). Fields
// become ordinary parameters; files are buffered in memory up to a hard cap and handed to the
// route through `uploadedFiles(request)`. Routes apply the organization's own, smaller limit.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Busboy } from '@fastify/busboy';
import { BadRequest } from '../errors.js';
import type { UploadedFile } from '../lib/uploads.js';

/** No upload, whatever an organization allows, is read past this (Zulip's largest default is 100 MiB). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;
const MAX_FILES = 10;
const MAX_FIELDS = 100;

const FILES = Symbol('uploadedFiles');

export function uploadedFiles(request: FastifyRequest): UploadedFile[] {
  const body = request.body as { [FILES]?: UploadedFile[] } | undefined;
  return body?.[FILES] ?? [];
}

export function registerMultipart(app: FastifyInstance): void {
  app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    let bb: ReturnType<typeof Busboy>;
    try {
      bb = Busboy({
        headers: request.headers as { 'content-type': string },
        limits: { fileSize: MAX_UPLOAD_BYTES, files: MAX_FILES, fields: MAX_FIELDS, fieldSize: 1024 * 1024 },
      });
    } catch {
      done(new BadRequest('Malformed multipart body'), undefined);
      return;
    }
    const fields: Record<string | symbol, unknown> = {};
    const files: UploadedFile[] = [];
    let failed = false;
    const fail = () => {
      if (failed) return;
      failed = true;
      done(new BadRequest('Malformed multipart body'), undefined);
    };
    bb.on('field', (name, value) => {
      fields[name] = value;
    });
    bb.on('file', (field, stream, filename, _encoding, mimeType) => {
      const chunks: Buffer[] = [];
      const file: UploadedFile = { field, filename: filename ?? '', mimeType: mimeType || 'application/octet-stream', data: Buffer.alloc(0), truncated: false };
      files.push(file);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        file.truncated = true;
      });
      stream.on('end', () => {
        file.data = Buffer.concat(chunks);
        file.truncated ||= Boolean((stream as { truncated?: boolean }).truncated);
      });
    });
    bb.on('error', fail);
    bb.on('finish', () => {
      if (failed) return;
      fields[FILES] = files;
      done(null, fields);
    });
    payload.on('error', fail);
    payload.pipe(bb);
  });
}
