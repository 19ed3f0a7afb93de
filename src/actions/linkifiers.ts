// Linkifiers: organization administrators define patterns whose matches in messages become links.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { deleteLinkifier, setLinkifierOrder, insertLinkifier, linkifierForClient, linkifierWithPattern, listLinkifiers, updateLinkifierFields, type Linkifier } from '../store/linkifiers.js';
import { onConflict } from '../store/conflicts.js';
import { BadRequest, AdminRequired } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { compilePattern } from '../lib/linkifier_patterns.js';
import { isWebTemplate, templateVariables } from '../lib/uri_templates.js';

export interface LinkifierInput {
  pattern: string;
  url_template: string;
  example_input: string | null;
  reverse_template: string | null;
  alternative_url_templates: string[];
}

/** Fills a reverse template: {name} takes a group's text, {{ and }} stand for literal braces. */
function applyReverse(template: string, groups: Record<string, string>): string | undefined {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '{' && template[i + 1] === '{') {
      out += '{';
      i++;
    } else if (c === '}' && template[i + 1] === '}') {
      out += '}';
      i++;
    } else if (c === '{') {
      const end = template.indexOf('}', i);
      if (end < 0) return undefined;
      const name = template.slice(i + 1, end);
      if (!(name in groups)) return undefined;
      out += groups[name];
      i = end;
    } else if (c === '}') {
      return undefined;
    } else {
      out += c;
    }
  }
  return out;
}

export function validateLinkifier(l: LinkifierInput): void {
  const re = compilePattern(l.pattern);
  if (!re) throw new BadRequest('Invalid linkifier pattern.');
  const groups = Object.keys(re.namedGroups());
  const checkTemplate = (template: string) => {
    const vars = templateVariables(template);
    if (!vars || !isWebTemplate(template)) throw new BadRequest('Invalid URL template.');
    for (const v of vars) if (!groups.includes(v)) throw new BadRequest(`Group '${v}' in URL template is not present in linkifier pattern.`);
    return vars;
  };
  const vars = checkTemplate(l.url_template);
  for (const g of groups) if (!vars.includes(g)) throw new BadRequest(`Group '${g}' in linkifier pattern is not present in URL template.`);
  for (const alt of l.alternative_url_templates) checkTemplate(alt);
  if (l.reverse_template !== null && l.example_input === null) throw new BadRequest('An example input is required with a reverse template.');
  if (l.example_input !== null) {
    const m = re.matcher(l.example_input);
    if (!m.matches()) throw new BadRequest('Example input does not match the linkifier pattern.');
    if (l.reverse_template !== null) {
      const values: Record<string, string> = {};
      for (const g of groups) values[g] = m.group(g) ?? '';
      if (applyReverse(l.reverse_template, values) !== l.example_input) {
        throw new BadRequest('The reverse template, applied to the example input, does not give back the example input.');
      }
    }
  }
}

function requireAdmin(user: User): void {
  if (!isRealmAdmin(user)) throw new AdminRequired();
}

async function announce(services: Services, tx: Executor, onCommit: (h: () => void) => void, realmId: number, audience: number[]) {
  const list = await listLinkifiers(tx, realmId);
  publishAfterCommit(services, onCommit, { realmId, userIds: audience, event: { type: 'realm_linkifiers', realm_linkifiers: list.map(linkifierForClient) } });
  onCommit(() => services.cache.invalidateLinkifiers(realmId));
}

async function audienceOf(services: Services, realmId: number): Promise<number[]> {
  return [...(await services.cache.users(realmId)).values()].filter((u) => u.is_active).map((u) => u.id);
}

/** Zulip's answer (Django's unique-together text for its RealmFilter model) to a second linkifier of one pattern. */
const duplicatePattern = () => new BadRequest('Realm filter with this Realm and Pattern already exists.');

export async function addLinkifier(services: Services, caller: User, realm: Realm, l: LinkifierInput): Promise<{ id: number }> {
  requireAdmin(caller);
  validateLinkifier(l);
  const audience = await audienceOf(services, realm.id);
  // Checked in the transaction; of two requests racing with one pattern, the index refuses the second.
  return onConflict(
    services.database.transaction(async (tx, onCommit) => {
      if ((await linkifierWithPattern(tx, realm.id, l.pattern)) !== undefined) throw duplicatePattern();
      const id = await insertLinkifier(tx, realm.id, l);
      await announce(services, tx, onCommit, realm.id, audience);
      return { id };
    }),
    duplicatePattern,
  );
}

export async function updateLinkifier(services: Services, caller: User, realm: Realm, id: number, l: LinkifierInput): Promise<void> {
  requireAdmin(caller);
  validateLinkifier(l);
  const audience = await audienceOf(services, realm.id);
  await onConflict(
    services.database.transaction(async (tx, onCommit) => {
      if ((await linkifierWithPattern(tx, realm.id, l.pattern, id)) !== undefined) throw duplicatePattern();
      if (!(await updateLinkifierFields(tx, realm.id, id, l))) throw new BadRequest('Linkifier not found.');
      await announce(services, tx, onCommit, realm.id, audience);
    }),
    duplicatePattern,
  );
}

export async function removeLinkifier(services: Services, caller: User, realm: Realm, id: number): Promise<void> {
  requireAdmin(caller);
  const audience = await audienceOf(services, realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await deleteLinkifier(tx, realm.id, id))) throw new BadRequest('Linkifier not found.');
    await announce(services, tx, onCommit, realm.id, audience);
  });
}

export async function reorderLinkifiers(services: Services, caller: User, realm: Realm, order: number[]): Promise<void> {
  requireAdmin(caller);
  const audience = await audienceOf(services, realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    // As Zulip's check_reorder_linkifiers: repeated ids first, then the set of all linkifiers,
    // and an organization without linkifiers has nothing to reorder (no event).
    if (new Set(order).size !== order.length) throw new BadRequest('The ordered list must not contain duplicated linkifiers');
    const current: Linkifier[] = await listLinkifiers(tx, realm.id);
    const ids = new Set(current.map((l) => l.id));
    if (order.length !== ids.size || !order.every((id) => ids.has(id))) {
      throw new BadRequest('The ordered list must enumerate all existing linkifiers exactly once');
    }
    if (current.length === 0) return;
    await setLinkifierOrder(tx, order);
    await announce(services, tx, onCommit, realm.id, audience);
  });
}
