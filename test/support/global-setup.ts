// Builds a migrated template database once per run with the real `prisma migrate deploy`; each
// suite then clones it (CREATE DATABASE ... TEMPLATE), which takes milliseconds, never touching
// the developer's `tollgate` database. The template is named after this process so concurrent
// runs (two terminals, CI and a developer) never drop each other's template.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { withAdmin } from './database';
import { databaseUrl } from './test-env';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export default async function setup(): Promise<() => Promise<void>> {
  const template = `tollgate_test_template_${process.pid}`;
  process.env.TOLLGATE_TEST_TEMPLATE = template;

  await withAdmin(async (admin) => {
    // Leftovers of runs that were killed before their teardown: their pid is gone.
    const { rows } = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname ~ '^tollgate_(test|empty)_(template_)?[0-9]+'");
    for (const { datname } of rows) {
      const pid = Number(/_(\d+)(_|$)/.exec(datname)?.[1]);
      if (pid && pid !== process.pid && !alive(pid)) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    }
    await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${template}`);
  });

  const root = path.resolve(__dirname, '../..');
  // Suites that run the API as real processes need it built; Nx skips this when nothing changed.
  run(path.join(root, 'node_modules/.bin/nx'), ['run', '@tollgate/api:build', '--outputStyle=static'], root, { NX_DAEMON: 'false' });
  run(process.execPath, [path.join(root, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], root, {
    DATABASE_URL: databaseUrl(template),
    CHECKPOINT_DISABLE: '1',
  });

  return async () => {
    await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`));
  };
}

function run(command: string, args: string[], cwd: string, env: Record<string, string>): void {
  try {
    execFileSync(command, args, { cwd, env: { ...process.env, ...env }, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`test setup: \`${path.basename(command)} ${args.join(' ')}\` failed:\n${stdout ?? ''}${stderr ?? ''}`);
  }
}
