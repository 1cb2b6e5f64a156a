// `npm run db:migrate`: creates the database if it does not exist yet, then applies pending
// migrations with `prisma migrate deploy` (wasm schema engine: no download, see prisma.config.ts).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { redactUrl } from '../apps/api/src/config/env';

const ROOT = path.resolve(__dirname, '..');
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/tollgate';

export class MigrateError extends Error {}

export async function ensureDatabase(databaseUrl: string): Promise<boolean> {
  const target = new URL(databaseUrl);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!/^[\w-]{1,63}$/.test(name)) throw new MigrateError(`Database name "${name}" in DATABASE_URL is not a plain identifier.`);
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new MigrateError(
      `Cannot reach Postgres at ${redactUrl(databaseUrl)} (${code === 'ECONNREFUSED' ? 'connection refused' : (error as Error).message}). ` +
        'Start it with `docker compose up -d postgres redis` (or your local Postgres).',
    );
  }
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name}"`);
    return true;
  } finally {
    await client.end();
  }
}

export async function migrate(databaseUrl: string, options: { quiet?: boolean } = {}): Promise<void> {
  const created = await ensureDatabase(databaseUrl);
  if (created && !options.quiet) console.log(`Created database ${redactUrl(databaseUrl)}`);
  const result = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl, CHECKPOINT_DISABLE: '1', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new MigrateError(`prisma migrate deploy failed:\n${(result.stderr || result.stdout).trim()}`);
  }
  if (!options.quiet) {
    const summary = result.stdout.split('\n').filter((line) => /migrations?|applied|No pending/i.test(line) && !/Loaded Prisma config/.test(line));
    console.log(summary.join('\n').trim() || 'Migrations applied.');
  }
}

if (require.main === module) {
  migrate(process.env.DATABASE_URL || DEFAULT_DATABASE_URL).catch((error: unknown) => {
    console.error(`db:migrate: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
