// Code playgrounds of an organization (unique by organization, language and name).
import type { Executor } from './db.js';

export interface Playground {
  id: number;
  name: string;
  pygments_language: string;
  url_template: string;
}

/** The organization's playgrounds, oldest first. */
export async function listPlaygrounds(db: Executor, realmId: number): Promise<Playground[]> {
  return db.selectFrom('realm_playgrounds').select(['id', 'name', 'pygments_language', 'url_template']).where('realm_id', '=', realmId).orderBy('id').execute();
}

/** Whether the organization has a playground of this name for this language. */
export async function playgroundExists(db: Executor, realmId: number, name: string, language: string): Promise<boolean> {
  const r = await db.selectFrom('realm_playgrounds').select('id').where('realm_id', '=', realmId).where('name', '=', name).where('pygments_language', '=', language).executeTakeFirst();
  return !!r;
}

/** Stores a playground; a duplicate (racing the check above) fails with a UniqueConflict. */
export async function insertPlayground(db: Executor, realmId: number, p: Omit<Playground, 'id'>): Promise<number> {
  const row = await db.insertInto('realm_playgrounds').values({ realm_id: realmId, ...p }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Deletes one of the organization's playgrounds; false when it has no such playground. */
export async function deletePlayground(db: Executor, realmId: number, id: number): Promise<boolean> {
  const res = await db.deleteFrom('realm_playgrounds').where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
