// An organization's allowed email domains (Zulip's zerver/views/realm_domains.py and
// zerver/actions/realm_domains.py), and the check every new account's address passes
// (Zulip's email_allowed_for_realm): with emails_restricted_to_domains, only these domains.
import type { Services } from '../services.js';
import type { Realm, RealmSettings } from '../store/realms.js';
import { getRealm, updateRealm } from '../store/realms.js';
import type { User } from '../store/users.js';
import { requireRealmOwner } from '../access/roles.js';
import type { Executor } from '../store/db.js';
import { BadRequest } from '../errors.js';
import { isDisposableDomain } from '../lib/disposable_email.js';
import { publishAfterCommit, type OnCommit } from '../events/publish.js';
import type { ConfabEvent } from '../events/types.js';
import { onConflict } from '../store/conflicts.js';
import { deleteRealmDomain, insertRealmDomain, listRealmDomains, setRealmDomainSubdomains, type RealmDomain } from '../store/realm_domains.js';

export { listRealmDomains };

/** Why an address may not join an organization; the caller words it as its Zulip view does. */
export type EmailRefusal = 'domain' | 'plus' | 'disposable';

/**
 * Zulip's get_realm_email_validator: without emails_restricted_to_domains every address passes
 * but one of a disposable-address service when disallow_disposable_email_addresses is on
 * (validate_is_not_disposable); with it, the local part may not hold a '+' and the domain must be
 * one of the organization's, or under one that allows subdomains (no disposable check: the
 * organization's own list already decides).
 */
export function emailRefusal(realm: Realm, domains: RealmDomain[], email: string): EmailRefusal | undefined {
  const at = email.lastIndexOf('@');
  if (!realm.settings.emails_restricted_to_domains) {
    return realm.settings.disallow_disposable_email_addresses && isDisposableDomain(email.slice(at + 1)) ? 'disposable' : undefined;
  }
  if (email.slice(0, at).includes('+')) return 'plus';
  let domain = email.slice(at + 1).toLowerCase();
  if (domains.some((d) => d.domain === domain)) return undefined;
  const withSubdomains = new Set(domains.filter((d) => d.allow_subdomains).map((d) => d.domain));
  while (domain.length > 0) {
    const dot = domain.indexOf('.');
    domain = dot < 0 ? '' : domain.slice(dot + 1);
    if (withSubdomains.has(domain)) return undefined;
  }
  return 'domain';
}

/** Zulip's validate_email_is_valid words for a refusal (invitations, a new address). */
export function refusalText(refusal: EmailRefusal): string {
  if (refusal === 'domain') return 'Outside your domain.';
  if (refusal === 'disposable') return 'Please use your real email address.';
  return 'Email addresses containing + are not allowed.';
}

/** The organization's domains, read only when its addresses are restricted to them. */
export async function emailDomainsToCheck(services: Services, realm: Realm): Promise<RealmDomain[]> {
  return realm.settings.emails_restricted_to_domains ? listRealmDomains(services.database.db, realm.id) : [];
}

/** Zulip's validate_domain (zerver/lib/domains.py), on the stripped, lower-cased domain. */
function validateDomain(domain: string): void {
  const invalid = (why: string) => new BadRequest(`Invalid domain: ${why}`);
  if (domain.length === 0) throw invalid("Domain can't be empty.");
  if (!domain.includes('.')) throw invalid('Domain must have at least one dot (.)');
  if (domain.length > 255) throw invalid('Domain is too long');
  if (domain.startsWith('.') || domain.endsWith('.')) throw invalid('Domain cannot start or end with a dot (.)');
  for (const part of domain.split('.')) {
    if (!part) throw invalid("Consecutive '.' are not allowed.");
    if (part.startsWith('-') || part.endsWith('-')) throw invalid("Subdomains cannot start or end with a '-'.");
    if (!/^[a-z0-9-]*$/.test(part)) throw invalid("Domain can only have letters, numbers, '.' and '-'s.");
  }
}

async function announce(services: Services, onCommit: OnCommit, realmId: number, event: ConfabEvent): Promise<void> {
  const audience = [...(await services.cache.users(realmId)).values()].filter((u) => u.is_active).map((u) => u.id);
  publishAfterCommit(services, onCommit, { realmId, userIds: audience, event });
}

export async function addRealmDomain(services: Services, caller: User, realm: Realm, rawDomain: string, allowSubdomains: boolean): Promise<{ new_domain: [number, string] }> {
  requireRealmOwner(caller);
  const domain = rawDomain.trim().toLowerCase();
  validateDomain(domain);
  const taken = () => new BadRequest(`The domain ${domain} is already a part of your organization.`);
  if ((await listRealmDomains(services.database.db, realm.id)).some((d) => d.domain === domain)) throw taken();
  return onConflict(services.database.transaction(async (tx, onCommit) => {
    const id = await insertRealmDomain(tx, realm.id, { domain, allow_subdomains: allowSubdomains });
    await announce(services, onCommit, realm.id, { type: 'realm_domains', op: 'add', realm_domain: { domain, allow_subdomains: allowSubdomains } });
    return { new_domain: [id, domain] as [number, string] };
  }), taken);
}

export async function changeRealmDomain(services: Services, caller: User, realm: Realm, domain: string, allowSubdomains: boolean): Promise<void> {
  requireRealmOwner(caller);
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await setRealmDomainSubdomains(tx, realm.id, domain, allowSubdomains))) throw new BadRequest(`No entry found for domain ${domain}.`);
    await announce(services, onCommit, realm.id, { type: 'realm_domains', op: 'change', realm_domain: { domain, allow_subdomains: allowSubdomains } });
  });
}

/**
 * Zulip's do_remove_realm_domain: removing the last domain of an organization restricted to its
 * domains lifts the restriction (it would admit nobody), with the realm update event.
 */
export async function removeRealmDomain(services: Services, caller: User, realm: Realm, domain: string): Promise<void> {
  requireRealmOwner(caller);
  await services.database.transaction(async (tx, onCommit) => {
    if (!(await deleteRealmDomain(tx, realm.id, domain))) throw new BadRequest(`No entry found for domain ${domain}.`);
    await liftRestrictionIfNoDomains(services, tx, onCommit, realm.id);
    await announce(services, onCommit, realm.id, { type: 'realm_domains', op: 'remove', domain });
  });
}

async function liftRestrictionIfNoDomains(services: Services, tx: Executor, onCommit: OnCommit, realmId: number): Promise<void> {
  const fresh = await getRealm(tx, realmId);
  if (!fresh?.settings.emails_restricted_to_domains || (await listRealmDomains(tx, realmId)).length > 0) return;
  await updateRealm(tx, realmId, { settings: { ...fresh.settings, emails_restricted_to_domains: false } as RealmSettings });
  await announce(services, onCommit, realmId, { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false });
  onCommit(() => services.cache.invalidateRealm(realmId));
}
