// Migration 0091: an organization's allowed email domains (Zulip's RealmDomain), which
// emails_restricted_to_domains limits new accounts to.
import type { Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { createTable, type Db, intColumn } from './helpers.js';

export function realmDomains(dialect: DialectName): Migration {
  return {
    async up(db: Db) {
      const int = intColumn(dialect);
      await createTable(db, dialect, 'realm_domains')
        .addColumn('realm_id', int, (c) => c.notNull().references('realms.id'))
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('allow_subdomains', 'boolean', (c) => c.notNull())
        .addUniqueConstraint('realm_domains_key', ['realm_id', 'domain'])
        .execute();
    },
  };
}
