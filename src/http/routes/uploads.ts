// File uploads: POST /user_uploads, the short-lived URL of an uploaded file, and the user's own
// attachments (GET /attachments, DELETE /attachments/{attachment_id}).
import { decodedPathPart, pathInt, type Router } from '../router.js';
import { uploadedFiles } from '../multipart.js';
import { BadRequest, NotFound } from '../../errors.js';
import { listAttachments, mayAccessAttachment, maxUploadBytes, removeAttachment, uploadFile, uploadTooLarge } from '../../actions/attachments.js';
import { attachmentByPath } from '../../store/attachments.js';
import { temporaryUrl } from '../../lib/uploads.js';
import { nowSeconds } from '../../services.js';

export const FILE_NOT_FOUND = 'This file does not exist or has been deleted.';

export function registerUploadRoutes(r: Router): void {
  r.upload('/user_uploads', {
    maxBytes: () => maxUploadBytes(r.services),
    tooLarge: () => uploadTooLarge(r.services),
    maxFiles: 1,
    tooMany: () => new BadRequest('You may only upload one file at a time'),
  }, async ({ request, services, user, realm, params }) => {
    // The file's form field (`file`, `filename`, …) is not a parameter.
    for (const f of uploadedFiles(request)) params.accept(f.field);
    const { url, filename } = await uploadFile(services, user, realm, uploadedFiles(request));
    // `uri` is the name clients before feature level 272 read.
    return { uri: url, url, filename };
  });

  // The API form of a file's address answers with a URL that works without credentials for a
  // minute (for clients that hand the download to something that cannot authenticate).
  r.get('/user_uploads/{realm_id_str}/{filename*}', async (ctx) => {
    const { services, user } = ctx;
    const realmPart = decodedPathPart(ctx, 'realm_id_str');
    const rest = decodedPathPart(ctx, 'filename');
    if (!/^\d+$/.test(realmPart) || !rest) throw new NotFound(FILE_NOT_FOUND);
    const a = await attachmentByPath(services.database.db, `${realmPart}/${rest}`);
    if (!a || !(await mayAccessAttachment(services.database.db, user, a))) throw new NotFound(FILE_NOT_FOUND);
    return { url: temporaryUrl(a.path_id, a.url_secret, nowSeconds()) };
  });

  r.get('/attachments', async ({ services, user, realm }) => listAttachments(services, user, realm));

  r.delete('/attachments/{attachment_id}', async (ctx) => {
    await removeAttachment(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'attachment_id', () => new BadRequest('Invalid attachment')));
    return {};
  });
}
