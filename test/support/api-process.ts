// Real API processes (`node apps/api/dist/main.js`), several on one database and one Redis prefix:
// what a horizontally scaled deployment looks like. Needs the built API (the vitest globalSetup
// builds it; the bench builds it too). Every process is killed by `stop()`, and, should the
// caller crash first, when this process exits.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { uniqueRedisPrefix } from './redis';

export { deleteRedisPrefix } from './redis';
import { TEST_REDIS_URL } from './test-env';

export const API_MAIN = path.resolve(__dirname, '../../apps/api/dist/main.js');

export interface ApiProcessOptions {
  databaseUrl: string;
  /** How many processes (default 1). */
  count?: number;
  redisUrl?: string;
  /** Shared by every process; default a fresh unique one. */
  redisPrefix?: string;
  rootKey?: string;
  logLevel?: string;
  /** Extra environment for every process. */
  env?: Record<string, string>;
  /** How long to wait for each process to listen and report healthy (default 30 s). */
  startTimeoutMs?: number;
}

export interface ApiProcess {
  url: string;
  pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
}

export interface ApiProcesses {
  processes: ApiProcess[];
  urls: string[];
  redisPrefix: string;
  /** Kills every process (SIGTERM, then SIGKILL after 5 s) and waits until they are gone. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort: never leave an API process behind when the test runner or bench dies.
  process.once('exit', () => {
    for (const child of running) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited(child);
    clearTimeout(killer);
  }
  running.delete(child);
}

async function waitHealthy(url: string, deadline: number, child: ChildProcess, output: () => string): Promise<void> {
  let last = '';
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`API process exited with ${child.exitCode} before it was healthy:\n${output()}`);
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      last = `${response.status} ${await response.text()}`;
      if (response.status === 200) return;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`API at ${url} not healthy in time (last: ${last}):\n${output()}`);
}

function startOne(env: NodeJS.ProcessEnv, timeoutMs: number): Promise<{ child: ChildProcess; process: ApiProcess }> {
  // PORT=0: the OS picks a free port and main.ts prints the one it got, so there is no race
  // between choosing a port and binding it.
  const child = spawn(process.execPath, [API_MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let text = '';
  const output = () => text;
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + timeoutMs;
    const timer = setTimeout(() => fail(new Error(`API process did not report its port within ${timeoutMs} ms:\n${text}`)), timeoutMs);
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stopChild(child).finally(() => reject(error));
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (text.length > 200_000) text = text.slice(-100_000);
      const match = /Tollgate API listening on (http:\/\/[\d.]+:(\d+))/.exec(text);
      if (match && !settled) {
        settled = true;
        clearTimeout(timer);
        const url = `http://127.0.0.1:${match[2]}`;
        waitHealthy(url, deadline, child, output).then(
          () => resolve({ child, process: { url, pid: child.pid ?? -1, output } }),
          (error: Error) => void stopChild(child).finally(() => reject(error)),
        );
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error) => fail(error));
    child.once('exit', (code, signal) => fail(new Error(`API process exited (${code ?? signal}) during start:\n${text}`)));
  });
}

/** Starts `count` API processes on one database and one Redis prefix; resolves when all are healthy. */
export async function startApiProcesses(options: ApiProcessOptions): Promise<ApiProcesses> {
  if (!existsSync(API_MAIN)) throw new Error(`${API_MAIN} is missing: build the API first (npx nx run @tollgate/api:build)`);
  installExitHook();
  const redisPrefix = options.redisPrefix ?? uniqueRedisPrefix('procs');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
    REDIS_KEY_PREFIX: redisPrefix,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: options.logLevel ?? 'warn',
    NODE_ENV: 'test',
    ...(options.rootKey ? { TOLLGATE_ROOT_KEY: options.rootKey } : {}),
    ...options.env,
  };
  // Nothing from the caller's environment that would change what the processes do.
  delete env.TOLLGATE_ADMIN_EMAIL;
  delete env.TOLLGATE_ADMIN_PASSWORD;
  if (!options.rootKey) delete env.TOLLGATE_ROOT_KEY;
  const count = options.count ?? 1;
  const timeoutMs = options.startTimeoutMs ?? 30_000;
  // The first one alone: with a root key it bootstraps it in the database, and N processes
  // racing to create the same root key would be a different test.
  const started: Array<{ child: ChildProcess; process: ApiProcess }> = [];
  const stop = async () => {
    await Promise.all(started.map(({ child }) => stopChild(child)));
  };
  try {
    started.push(await startOne(env, timeoutMs));
    const rest = await Promise.allSettled(Array.from({ length: count - 1 }, () => startOne(env, timeoutMs)));
    for (const result of rest) if (result.status === 'fulfilled') started.push(result.value);
    const failed = rest.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (error) {
    await stop();
    throw error;
  }
  const processes = started.map(({ process }) => process);
  return { processes, urls: processes.map((p) => p.url), redisPrefix, stop };
}
