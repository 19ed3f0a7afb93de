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
