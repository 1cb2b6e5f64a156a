// `npm start`: the whole product on this machine. Applies migrations, seeds demo data on an empty
// database, builds what is out of date (Nx caches the rest), starts the API and the dashboard,
// and prints where they are with the admin login and a demo key.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { EnvError, parseEnv } from '../apps/api/src/config/env';
import { PreflightError, preflight } from '../apps/api/src/infra/preflight';
import { describeSeed, seed } from '../prisma/seed';
import { exited } from './child-exit';
import { MigrateError, ensureDatabase, migrate } from './migrate';

const ROOT = path.resolve(__dirname, '..');
const children: ChildProcess[] = [];

function run(command: string, args: string[], env: NodeJS.ProcessEnv, label: string): ChildProcess {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (line: string) => (line ? `[${label}] ${line}\n` : '');
  child.stdout?.on('data', (chunk: Buffer) => process.stdout.write(chunk.toString().split('\n').map(prefix).join('')));
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk.toString().split('\n').map(prefix).join('')));
  children.push(child);
  return child;
}

async function waitFor(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (response.status < 500) return true;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

function stopAll(code: number): never {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  process.exit(code);
}

async function main(): Promise<void> {
  const env = parseEnv();
  const childEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NX_DAEMON: 'false', DATABASE_URL: env.DATABASE_URL, REDIS_URL: env.REDIS_URL };

  await ensureDatabase(env.DATABASE_URL);
  await preflight(env.DATABASE_URL, env.REDIS_URL);
  console.log('Applying migrations...');
  await migrate(env.DATABASE_URL, { quiet: true });
  const seeded = await seed(env.DATABASE_URL);

  console.log('Building (cached when nothing changed)...');
  // One Nx run for both: two at once would each build (or restore from cache) the libraries they
  // share, rewriting libs/*/dist while the other's output is already running.
  const nx = path.join(ROOT, 'node_modules/.bin/nx');
  const build = run(nx, ['run-many', '-t', 'build', '-p', '@tollgate/api', '@tollgate/dashboard', '--outputStyle=stream'], { ...childEnv, API_URL: env.API_URL }, 'build');
  if ((await exited(build)) !== 0) throw new Error('the build failed (see above)');

  const api = run(process.execPath, ['apps/api/dist/main.js'], childEnv, 'api');
  api.on('exit', (code) => {
    console.error(`The API exited (${code}).`);
    stopAll(code || 1);
  });
  const next = path.join(ROOT, 'node_modules/.bin/next');
  const dashboard = run(next, ['start', 'apps/dashboard', '-p', String(env.DASHBOARD_PORT)], { ...childEnv, API_URL: env.API_URL }, 'dashboard');
  dashboard.on('exit', (code) => {
    console.error(`The dashboard exited (${code}).`);
    stopAll(code || 1);
  });

  const apiUrl = `http://127.0.0.1:${env.PORT}`;
  const dashboardUrl = `http://127.0.0.1:${env.DASHBOARD_PORT}`;
  const [apiUp, dashboardUp] = await Promise.all([waitFor(`${apiUrl}/health`, 60_000), waitFor(`${dashboardUrl}/login`, 60_000)]);
  if (!apiUp || !dashboardUp) throw new Error(`${apiUp ? 'the dashboard' : 'the API'} did not come up within 60 s`);

  console.log(
    [
      '',
      'Tollgate is running.',
      `  API:        ${apiUrl}   (OpenAPI: ${apiUrl}/docs)`,
      `  Dashboard:  ${dashboardUrl}`,
      ...describeSeed(seeded).map((line) => `  ${line}`),
      `  Try it:     curl -H "Authorization: Bearer <demo key>" ${apiUrl}/v1/demo/echo`,
      '',
    ].join('\n'),
  );
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

main().catch((error: unknown) => {
  const known = error instanceof EnvError || error instanceof PreflightError || error instanceof MigrateError;
  console.error(`tollgate: ${known ? (error as Error).message : error instanceof Error ? error.message : String(error)}`);
  stopAll(1);
});
