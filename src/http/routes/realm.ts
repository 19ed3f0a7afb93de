// Organization settings (PATCH /realm), linkifiers, code playgrounds, and the user-group list (GET /user_groups).
import type { Router } from '../router.js';
import { decodedPathPart, pathInt } from '../router.js';
import { BadRequest, MissingArgument } from '../../errors.js';
import { addRealmDomain, changeRealmDomain, listRealmDomains, removeRealmDomain } from '../../actions/realm_domains.js';
import { addPlayground, removePlayground } from '../../actions/playgrounds.js';
import { addLinkifier, removeLinkifier, reorderLinkifiers, updateLinkifier, type LinkifierInput } from '../../actions/linkifiers.js';
import { linkifierForClient, listLinkifiers } from '../../store/linkifiers.js';
import { check, type Params } from '../../lib/params.js';
import { parseRealmUpdate, updateRealmSettings } from '../../actions/realm_settings.js';
import { requireMemberOrAdmin, requireRealmAdmin, requireRealmOwner } from '../../access/roles.js';
import { userGroupsForClient } from '../../shapes/groups.js';

/** An empty example_input or reverse_template means none (null), as Zulip reads them. */
function linkifierInput(params: Params): LinkifierInput {
  const nullable = (name: string) => {
    const v = params.optStr(name);
    return v === undefined || v === '' ? null : v;
  };
  return {
    pattern: params.str('pattern'),
    url_template: params.str('url_template'),
    example_input: nullable('example_input'),
    reverse_template: nullable('reverse_template'),
    alternative_url_templates: params.optJson('alternative_url_templates', check.strList) ?? [],
  };
}

export function registerRealmRoutes(r: Router): void {
  r.patch('/realm', async ({ params, services, user, realm }) => {
    // Zulip refuses non-administrators before looking at any parameter.
    requireRealmAdmin(user);
    return updateRealmSettings(services, user, realm, parseRealmUpdate(params));
  });

  // Allowed email domains (Zulip's zerver/views/realm_domains.py): anyone may list them; the
  // changes are @require_realm_owner, checked before any parameter.
  r.get('/realm/domains', async ({ services, realm }) => ({ domains: await listRealmDomains(services.database.db, realm.id) }));
  const allowSubdomains = (params: Params) => {
    const v = params.optBool('allow_subdomains');
    if (v === undefined) throw new MissingArgument('allow_subdomains');
    return v;
  };
  r.post('/realm/domains', async ({ params, services, user, realm }) => {
    requireRealmOwner(user);
    const allow = allowSubdomains(params);
    return addRealmDomain(services, user, realm, params.str('domain'), allow);
  });
  r.patch('/realm/domains/{domain}', async (ctx) => {
    requireRealmOwner(ctx.user);
    await changeRealmDomain(ctx.services, ctx.user, ctx.realm, decodedPathPart(ctx, 'domain'), allowSubdomains(ctx.params));
    return {};
  });
  r.delete('/realm/domains/{domain}', async (ctx) => {
    requireRealmOwner(ctx.user);
    await removeRealmDomain(ctx.services, ctx.user, ctx.realm, decodedPathPart(ctx, 'domain'));
    return {};
  });

  // Zulip's playground views are @require_realm_admin: the role is checked before any parameter.
  r.post('/realm/playgrounds', async ({ params, services, user, realm }) => {
    requireRealmAdmin(user);
    return addPlayground(services, user, realm, params.str('name'), params.str('pygments_language'), params.str('url_template'));
  });

  r.delete('/realm/playgrounds/{playground_id}', async (ctx) => {
    requireRealmAdmin(ctx.user);
    await removePlayground(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'playground_id', () => new BadRequest('Invalid playground')));
    return {};
  });

  r.get('/realm/linkifiers', async ({ services, realm }) => ({ linkifiers: (await listLinkifiers(services.database.db, realm.id)).map(linkifierForClient) }));
  // The legacy form older bindings still call.
  r.get('/realm/filters', async ({ services, realm }) => ({
    filters: (await listLinkifiers(services.database.db, realm.id)).map((l) => [l.pattern, l.url_template, l.id]),
  }));

  // Zulip's linkifier views are @require_realm_admin: the role is checked before any parameter.
  r.post('/realm/filters', async ({ params, services, user, realm }) => {
    requireRealmAdmin(user);
    return addLinkifier(services, user, realm, linkifierInput(params));
  });

  r.patch('/realm/filters/{filter_id}', async (ctx) => {
    requireRealmAdmin(ctx.user);
    const id = pathInt(ctx, 'filter_id', () => new BadRequest('Linkifier not found.'));
    await updateLinkifier(ctx.services, ctx.user, ctx.realm, id, linkifierInput(ctx.params));
    return {};
  });

  r.delete('/realm/filters/{filter_id}', async (ctx) => {
    await removeLinkifier(ctx.services, ctx.user, ctx.realm, pathInt(ctx, 'filter_id', () => new BadRequest('Linkifier not found.')));
    return {};
  });

  r.patch('/realm/linkifiers', async ({ params, services, user, realm }) => {
    requireRealmAdmin(user);
    await reorderLinkifiers(services, user, realm, params.json('ordered_linkifier_ids', check.intList));
    return {};
  });

  r.get('/user_groups', async ({ params, services, user, realm }) => {
    // Zulip's require_member_or_admin, as on every user-group endpoint but creation and deactivation.
    requireMemberOrAdmin(user);
    const includeDeactivated = params.bool('include_deactivated_groups', false);
    return { user_groups: await userGroupsForClient(services, realm.id, undefined, { includeDeactivated }) };
  });
}
