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

/**
 * The linkifier as the API lists it. The founding document's newer fields (example_input,
 * reverse_template, alternative_url_templates) are stored and validated but not listed: the shared
 * OpenAPI description (level 469) forbids them in these objects, and CI checks against it.
 */
export function linkifierForClient(l: Linkifier): { id: number; pattern: string; url_template: string } {
  return { id: l.id, pattern: l.pattern, url_template: l.url_template };
}
