// Linkifiers, in each organization's order.
import type { Executor } from './db.js';

export interface Linkifier {
  id: number;
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string[];
}

export async function listLinkifiers(db: Executor, realmId: number): Promise<Linkifier[]> {
  const rows = await db.selectFrom('linkifiers').selectAll().where('realm_id', '=', realmId).orderBy('order_index').orderBy('id').execute();
  return rows.map((r) => ({
    id: r.id,
    pattern: r.pattern,
    url_template: r.url_template,
    example_input: r.example_input,
    reverse_template: r.reverse_template,
    alternative_url_templates: JSON.parse(r.alternative_url_templates) as string[],
  }));
}

/** The linkifier as the API lists it, with the founding document's newer fields (level 494). */
export function linkifierForClient(l: Linkifier) {
  return {
    id: l.id,
    pattern: l.pattern,
    url_template: l.url_template,
    example_input: l.example_input,
    reverse_template: l.reverse_template,
    alternative_url_templates: l.alternative_url_templates,
  };
}

/** The fields a request sets on a linkifier (the order is the store's). */
export interface LinkifierFields {
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string[];
}

/** Another linkifier of the organization with exactly this pattern, if any. */
export async function linkifierWithPattern(db: Executor, realmId: number, pattern: string, exceptId?: number): Promise<number | undefined> {
  let q = db.selectFrom('linkifiers').select('id').where('realm_id', '=', realmId).where('pattern', '=', pattern);
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  return (await q.executeTakeFirst())?.id;
}

/** Adds a linkifier after the organization's last one. */
export async function insertLinkifier(db: Executor, realmId: number, l: LinkifierFields): Promise<number> {
  const max = await db.selectFrom('linkifiers').select((eb) => eb.fn.max('order_index').as('m')).where('realm_id', '=', realmId).executeTakeFirst();
  const row = await db
    .insertInto('linkifiers')
    .values({ realm_id: realmId, ...l, alternative_url_templates: JSON.stringify(l.alternative_url_templates), order_index: Number(max?.m ?? -1) + 1 })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** Replaces a linkifier's fields; false when the organization has no such linkifier. */
export async function updateLinkifierFields(db: Executor, realmId: number, id: number, l: LinkifierFields): Promise<boolean> {
  const res = await db
    .updateTable('linkifiers')
    .set({ ...l, alternative_url_templates: JSON.stringify(l.alternative_url_templates) })
    .where('realm_id', '=', realmId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Deletes one of the organization's linkifiers; false when it has no such linkifier. */
export async function deleteLinkifier(db: Executor, realmId: number, id: number): Promise<boolean> {
  const res = await db.deleteFrom('linkifiers').where('realm_id', '=', realmId).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Gives the linkifiers the positions of `order` (all of the organization's linkifiers' ids). */
export async function setLinkifierOrder(db: Executor, order: readonly number[]): Promise<void> {
  for (const [index, id] of order.entries()) await db.updateTable('linkifiers').set({ order_index: index }).where('id', '=', id).execute();
}
