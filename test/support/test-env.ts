// Where the test suites find Postgres and Redis. CI and developers share the contract's defaults.
export const TEST_DATABASE_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** Set by the vitest global setup for this run (see global-setup.ts). */
export function templateDatabase(): string {
  const name = process.env.TOLLGATE_TEST_TEMPLATE;
  if (!name) throw new Error('TOLLGATE_TEST_TEMPLATE is not set: run tests through vitest (its global setup builds the template).');
  return name;
}

export function databaseUrl(database: string): string {
  const url = new URL(TEST_DATABASE_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}
