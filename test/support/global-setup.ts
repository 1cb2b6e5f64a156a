// Builds a migrated template database once per run with the real `prisma migrate deploy`; each
// suite then clones it (CREATE DATABASE ... TEMPLATE), which takes milliseconds, never touching
// the developer's `tollgate` database.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { TEMPLATE_DATABASE, TEST_DATABASE_ADMIN_URL, databaseUrl } from './test-env';

export default async function setup(): Promise<void> {
  const admin = new Client({ connectionString: TEST_DATABASE_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const root = path.resolve(__dirname, '../..');
  // Suites that run the API as real processes need it built; Nx skips this when nothing changed.
  run(path.join(root, 'node_modules/.bin/nx'), ['run', '@tollgate/api:build', '--outputStyle=static'], root, { NX_DAEMON: 'false' });
  run(process.execPath, [path.join(root, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], root, {
    DATABASE_URL: databaseUrl(TEMPLATE_DATABASE),
    CHECKPOINT_DISABLE: '1',
  });
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>): void {
  try {
    execFileSync(command, args, { cwd, env: { ...process.env, ...env }, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`test setup: \`${path.basename(command)} ${args.join(' ')}\` failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}
