// Drafts and saved snippets: small per-user records.
import type { Executor } from './db.js';

export interface Draft {
  id: number;
  type: string;
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

export type NewDraft = Omit<Draft, 'id'>;

function draftFromRow(r: { id: number; type: string; to_ids: string; topic: string; content: string; last_edit_time: number }): Draft {
  return { id: r.id, type: r.type, to: JSON.parse(r.to_ids) as number[], topic: r.topic, content: r.content, timestamp: Number(r.last_edit_time) };
}

export async function insertDrafts(db: Executor, userId: number, drafts: NewDraft[]): Promise<number[]> {
  const ids: number[] = [];
  // One insert per draft keeps the returned ids in submission order on both databases.
  for (const d of drafts) {
    const row = await db
      .insertInto('drafts')
      .values({ user_id: userId, type: d.type, to_ids: JSON.stringify(d.to), topic: d.topic, content: d.content, last_edit_time: d.timestamp })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(row.id);
  }
  return ids;
}

/**
 * A user's drafts in Zulip's orders: GET /drafts oldest edit first; /register newest edit first,
 * at most `limit` of them. Ties (drafts saved in the same second) go by id.
 */
export async function listDrafts(db: Executor, userId: number, opts: { newestFirst?: boolean; limit?: number } = {}): Promise<Draft[]> {
  const dir = opts.newestFirst ? 'desc' : 'asc';
  let q = db.selectFrom('drafts').selectAll().where('user_id', '=', userId).orderBy('last_edit_time', dir).orderBy('id', dir);
  if (opts.limit !== undefined) q = q.limit(opts.limit);
  const rows = await q.execute();
  return rows.map(draftFromRow);
}

export async function getDraft(db: Executor, userId: number, id: number): Promise<Draft | undefined> {
  const row = await db.selectFrom('drafts').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return row ? draftFromRow(row) : undefined;
}

export async function updateDraft(db: Executor, userId: number, id: number, d: NewDraft): Promise<void> {
  await db
    .updateTable('drafts')
    .set({ type: d.type, to_ids: JSON.stringify(d.to), topic: d.topic, content: d.content, last_edit_time: d.timestamp })
    .where('user_id', '=', userId)
    .where('id', '=', id)
    .execute();
}

export async function deleteDraft(db: Executor, userId: number, id: number): Promise<void> {
  await db.deleteFrom('drafts').where('user_id', '=', userId).where('id', '=', id).execute();
}

export async function deleteAllDrafts(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom('drafts').where('user_id', '=', userId).execute();
}

// ---- saved snippets ----

export interface SavedSnippet {
  id: number;
  title: string;
  content: string;
  date_created: number;
}

export async function insertSnippet(db: Executor, realmId: number, userId: number, s: Omit<SavedSnippet, 'id'>): Promise<number> {
  const row = await db
    .insertInto('saved_snippets')
    .values({ realm_id: realmId, user_id: userId, title: s.title, content: s.content, date_created: s.date_created })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function listSnippets(db: Executor, userId: number): Promise<SavedSnippet[]> {
  const rows = await db.selectFrom('saved_snippets').select(['id', 'title', 'content', 'date_created']).where('user_id', '=', userId).orderBy('id').execute();
  return rows.map((r) => ({ ...r, date_created: Number(r.date_created) }));
}

export async function getSnippet(db: Executor, userId: number, id: number): Promise<SavedSnippet | undefined> {
  const r = await db.selectFrom('saved_snippets').select(['id', 'title', 'content', 'date_created']).where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return r ? { ...r, date_created: Number(r.date_created) } : undefined;
}

export async function updateSnippet(db: Executor, userId: number, id: number, fields: { title?: string; content?: string }): Promise<void> {
  await db.updateTable('saved_snippets').set(fields).where('user_id', '=', userId).where('id', '=', id).execute();
}

export async function deleteSnippet(db: Executor, userId: number, id: number): Promise<void> {
  await db.deleteFrom('saved_snippets').where('user_id', '=', userId).where('id', '=', id).execute();
}
