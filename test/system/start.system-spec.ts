import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueRedisPrefix } from '../support/redis';
import { TEST_DATABASE_ADMIN_URL, databaseUrl } from '../support/test-env';
import { Client } from 'pg';

const ROOT = path.resolve(__dirname, '../..');
/** How long npm start may take to build and start everything (the test itself times out at 240 s). */
const START_DEADLINE_MS = 200_000;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

describe('npm start on a database that does not exist yet', () => {
  const database = `tollgate_test_${process.pid}_start`;
  let child: ChildProcess | undefined;

  afterAll(async () => {
    if (child?.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    const admin = new Client({ connectionString: TEST_DATABASE_ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('creates and migrates it, seeds, serves /health and /login, and prints URLs, admin login and a demo key', async () => {
    const [port, dashboardPort] = [await freePort(), await freePort()];
    const started = Date.now();
    child = spawn('npm', ['start'], {
      cwd: ROOT,
      detached: true,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl(database),
        REDIS_KEY_PREFIX: uniqueRedisPrefix('start'),
        PORT: String(port),
        DASHBOARD_PORT: String(dashboardPort),
        API_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'warn',
        TOLLGATE_ADMIN_EMAIL: '',
        TOLLGATE_ADMIN_PASSWORD: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (output.includes('Tollgate is running.')) {
          clearInterval(timer);
          resolve();
        }
        if (child!.exitCode !== null) {
          clearInterval(timer);
          reject(new Error(`npm start exited (${child!.exitCode}):\n${output}`));
        }
        // Before the test's own timeout, so that a hang shows where npm start got to.
        if (Date.now() - started > START_DEADLINE_MS) {
          clearInterval(timer);
          reject(new Error(`npm start printed no "Tollgate is running." within ${START_DEADLINE_MS / 1000} s; its output so far:\n${output.slice(-4000)}`));
        }
      }, 200);
    });
    const readyAfterMs = Date.now() - started;
    console.log(`npm start: API and dashboard answered after ${(readyAfterMs / 1000).toFixed(1)} s`);

    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${dashboardPort}/login`)).status).toBe(200);
    expect(output).toContain(`API:        http://127.0.0.1:${port}`);
    expect(output).toContain(`Dashboard:  http://127.0.0.1:${dashboardPort}`);
    expect(output).toContain('Admin login: admin@tollgate.local');
    expect(output).toMatch(/Admin password: \S+ {3}\(shown once/);
    const demoKey = /Demo key: (tg_\w+)/.exec(output)?.[1];
    expect(demoKey).toBeDefined();
    const echo = await fetch(`http://127.0.0.1:${port}/v1/demo/echo`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(echo.status).toBe(200);
    expect(echo.headers.get('ratelimit-policy')).toContain('"burst"');
  }, 240_000);
});
