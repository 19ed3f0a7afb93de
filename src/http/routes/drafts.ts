// Drafts and saved snippets.
import type { Router } from '../router.js';
import { pathInt } from '../router.js';
import { check } from '../../lib/params.js';
import { ResourceNotFound } from '../../errors.js';
import { createDrafts, createSnippet, editDraft, editSnippet, parseDraft, removeDraft, removeSnippet, requireDraftSync } from '../../actions/drafts.js';
import { listDrafts, listSnippets } from '../../store/drafts.js';

export function registerDraftRoutes(r: Router): void {
  r.get('/drafts', async ({ services, user }) => {
    requireDraftSync(user);
    const drafts = await listDrafts(services.database.db, user.id);
    return { count: drafts.length, drafts };
  });

  r.post('/drafts', async ({ params, services, user }) => {
    const drafts = params.optJson('drafts', (v, name) => check.list(v, name).map((d, i) => parseDraft(d, `${name}[${i}]`))) ?? [];
    return createDrafts(services, user, drafts);
  });

  r.patch('/drafts/{draft_id}', async (ctx) => {
    const id = pathInt(ctx, 'draft_id', () => new ResourceNotFound('Draft does not exist'));
    const draft = ctx.params.json('draft', parseDraft);
    await editDraft(ctx.services, ctx.user, id, draft);
    return {};
  });

  r.delete('/drafts/{draft_id}', async (ctx) => {
    const id = pathInt(ctx, 'draft_id', () => new ResourceNotFound('Draft does not exist'));
    await removeDraft(ctx.services, ctx.user, id);
    return {};
  });

  r.get('/saved_snippets', async ({ services, user }) => ({ saved_snippets: await listSnippets(services.database.db, user.id) }));

  r.post('/saved_snippets', async ({ params, services, user }) => createSnippet(services, user, params.str('title'), params.str('content')));

  r.patch('/saved_snippets/{saved_snippet_id}', async (ctx) => {
    const id = pathInt(ctx, 'saved_snippet_id', () => new ResourceNotFound('Saved snippet does not exist.'));
    await editSnippet(ctx.services, ctx.user, id, ctx.params.optStr('title'), ctx.params.optStr('content'));
    return {};
  });

  r.delete('/saved_snippets/{saved_snippet_id}', async (ctx) => {
    const id = pathInt(ctx, 'saved_snippet_id', () => new ResourceNotFound('Saved snippet does not exist.'));
    await removeSnippet(ctx.services, ctx.user, id);
    return {};
  });
}
