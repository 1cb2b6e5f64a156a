// Where the test suites find Postgres and Redis. CI and developers share the contract's defaults.
export const TEST_DATABASE_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const TEMPLATE_DATABASE = 'tollgate_test_template';

export function databaseUrl(database: string): string {
  const url = new URL(TEST_DATABASE_ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}
