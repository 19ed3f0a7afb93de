// Code playgrounds: organization administrators link code blocks of a language to a runner.
import type { Services } from '../services.js';
import type { Realm } from '../store/realms.js';
import type { User } from '../store/users.js';
import type { Executor } from '../store/db.js';
import { BadRequest, AdminRequired } from '../errors.js';
import { publishAfterCommit } from '../events/publish.js';
import { isRealmAdmin } from '../access/channel_access.js';
import { isWebTemplate, templateVariables } from '../lib/uri_templates.js';
import { onConflict } from '../store/conflicts.js';
import { deletePlayground, insertPlayground, listPlaygrounds, playgroundExists } from '../store/playgrounds.js';

export { listPlaygrounds };

function validate(name: string, language: string, urlTemplate: string) {
  const n = name.trim();
  if (!n) throw new BadRequest('Name cannot be empty.');
  if (n.length > 50) throw new BadRequest('Name is too long.');
  // Zulip's check_pygments_language reads the language as sent: a capped string (40), then its characters.
  if ([...language].length > 40) throw new BadRequest('pygments_language is too long (limit: 40 characters)');
  if (!/^[ a-zA-Z0-9_+\-./#]*$/.test(language)) throw new BadRequest('Invalid characters in pygments language');
  const lang = language.trim();
  if (!lang) throw new BadRequest('Pygments language cannot be empty.');
  // add_realm_playground strips the URL template as it does the name and the language.
  urlTemplate = urlTemplate.trim();
  const vars = templateVariables(urlTemplate);
  if (!vars || !isWebTemplate(urlTemplate)) throw new BadRequest('Invalid URL template.');
  if (vars.length !== 1 || vars[0] !== 'code') throw new BadRequest('"code" should be the only variable present in the URL template');
  return { name: n, pygments_language: lang, url_template: urlTemplate };
}

async function announce(services: Services, tx: Executor, onCommit: (h: () => void) => void, realmId: number) {
  const list = await listPlaygrounds(tx, realmId);
  const audience = [...(await services.cache.users(realmId)).values()].filter((u) => u.is_active).map((u) => u.id);
  publishAfterCommit(services, onCommit, { realmId, userIds: audience, event: { type: 'realm_playgrounds', realm_playgrounds: list } });
}

export async function addPlayground(services: Services, caller: User, realm: Realm, name: string, language: string, urlTemplate: string): Promise<{ id: number }> {
  if (!isRealmAdmin(caller)) throw new AdminRequired();
  const p = validate(name, language, urlTemplate);
  await services.cache.users(realm.id);
  return onConflict(services.database.transaction(async (tx, onCommit) => {
    if (await playgroundExists(tx, realm.id, p.name, p.pygments_language)) throw new BadRequest('Realm playground with this Realm, Pygments language and Name already exists.');
    const id = await insertPlayground(tx, realm.id, p);
    await announce(services, tx, onCommit, realm.id);
    return { id };
  }), () => new BadRequest('Realm playground with this Realm, Pygments language and Name already exists.'));
}

export async function removePlayground(services: Services, caller: User, realm: Realm, id: number): Promise<void> {
  if (!isRealmAdmin(caller)) throw new AdminRequired();
  await services.cache.users(realm.id);
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await deletePlayground(tx, realm.id, id))) throw new BadRequest('Invalid playground');
    await announce(services, tx, onCommit, realm.id);
  });
}
