import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { TEST_DATABASE_ADMIN_URL, databaseUrl, templateDatabase } from './test-env';

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Runs `fn` with a connection to the maintenance database (to create and drop databases). */
export async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: TEST_DATABASE_ADMIN_URL });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** A fresh, migrated database of its own for one suite; `drop()` removes it. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `tollgate_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name} TEMPLATE ${templateDatabase()}`));
  return {
    name,
    url: databaseUrl(name),
    drop: () => withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** An empty database (no tables), for testing migrations themselves. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const name = `tollgate_empty_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin((admin) => admin.query(`CREATE DATABASE ${name}`));
  return {
    name,
    url: databaseUrl(name),
    drop: () => withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}
