// An organization's allowed email domains (unique by organization and domain), stored lower-case.
import type { Executor } from './db.js';

export interface RealmDomain {
  domain: string;
  allow_subdomains: boolean;
}

/** The organization's domains, alphabetically (Zulip's get_realm_domains orders by domain). */
export async function listRealmDomains(db: Executor, realmId: number): Promise<RealmDomain[]> {
  const rows = await db.selectFrom('realm_domains').select(['domain', 'allow_subdomains']).where('realm_id', '=', realmId).orderBy('domain').execute();
  return rows.map((r) => ({ domain: r.domain, allow_subdomains: !!r.allow_subdomains }));
}

/** Stores a domain; one already there (racing the caller's check) fails with a UniqueConflict. */
export async function insertRealmDomain(db: Executor, realmId: number, d: RealmDomain): Promise<number> {
  const row = await db.insertInto('realm_domains').values({ realm_id: realmId, domain: d.domain, allow_subdomains: d.allow_subdomains }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

/** Changes whether a domain admits its subdomains; false when the organization has no such domain. */
export async function setRealmDomainSubdomains(db: Executor, realmId: number, domain: string, allowSubdomains: boolean): Promise<boolean> {
  const res = await db.updateTable('realm_domains').set({ allow_subdomains: allowSubdomains }).where('realm_id', '=', realmId).where('domain', '=', domain).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Deletes a domain; false when the organization has no such domain. */
export async function deleteRealmDomain(db: Executor, realmId: number, domain: string): Promise<boolean> {
  const res = await db.deleteFrom('realm_domains').where('realm_id', '=', realmId).where('domain', '=', domain).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
