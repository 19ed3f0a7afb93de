// Store tests: store functions called directly on a fresh database (a temporary SQLite file, or a
// fresh schema in the PostgreSQL named by CONFAB_TEST_DATABASE_URL, as test/helpers.ts picks it),
// with one organization and its owner to hang rows on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { dropPostgresSchema, openDatabase, type Database } from '../../src/store/db.js';
import { createOrganization } from '../../src/actions/realms.js';
import { TEST_DATABASE_URL, ON_POSTGRES } from '../helpers.js';

export interface StoreFixture {
  database: Database;
  realmId: number;
  ownerId: number;
  /** Another connection to the same database (as a second server process would hold); closed by close(). */
  connectAgain(): Promise<Database>;
  close(): Promise<void>;
}

export async function openStore(): Promise<StoreFixture> {
  const schema = ON_POSTGRES ? `s_${process.pid}_${randomBytes(4).toString('hex')}` : undefined;
  const dir = ON_POSTGRES ? undefined : mkdtempSync(join(tmpdir(), 'confab-store-'));
  const url = dir ? `sqlite:${join(dir, 'confab.db')}` : TEST_DATABASE_URL;
  const database = await openDatabase(url, { schema, poolSize: 4 });
  const org = await createOrganization(database, { name: 'Store Org', ownerEmail: 'owner@example.com', ownerPassword: null, ownerName: 'Owner' });
  const others: Database[] = [];
  return {
    database,
    realmId: org.realm_id,
    ownerId: org.user_id,
    async connectAgain() {
      const other = await openDatabase(url, { schema, poolSize: 4 });
      others.push(other);
      return other;
    },
    async close() {
      for (const other of others) await other.close();
      await database.close();
      if (schema) await dropPostgresSchema(TEST_DATABASE_URL, schema);
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
