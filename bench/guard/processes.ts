// Child processes for the guard bench: the three benchmark servers (bench/guard/server.ts), the
// API build, and a throwaway migrated database for the real API processes.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../scripts/migrate';
import { TEST_DATABASE_ADMIN_URL, databaseUrl } from '../../test/support/test-env';

export const ROOT = path.resolve(__dirname, '../..');

export type ServerMode = 'guarded' | 'guarded-unmetered' | 'crossover' | 'unguarded' | 'throttler' | 'redis-floor';

export interface BenchServer {
  mode: ServerMode;
  url: string;
  pid: number | undefined;
  /** CPU seconds the server process has used so far (Linux /proc; null elsewhere). */
  cpuSeconds(): number | null;
  /** The last of what the server printed (warnings such as the guard's breaker opening). */
  output(): string;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(killer);
  }
  children.delete(child);
}

/** utime + stime of a process from /proc/<pid>/stat, in seconds (USER_HZ 100); null if unreadable. */
function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** Starts one benchmark server in its own process; resolves once it listens. */
export function startServer(mode: ServerMode, env: Record<string, string>, timeoutMs = 60_000): Promise<BenchServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'server.ts'), mode], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    // An IPC channel, so a server exits when this process dies without stopping it.
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stopChild(child);
      reject(new Error(`${mode} server did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    let ready = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.length > 100_000) output = output.slice(-50_000);
      const match = ready ? null : /READY (\d+)/.exec(output);
      if (match) {
        ready = true;
        clearTimeout(timer);
        resolve({ mode, url: `http://127.0.0.1:${match[1]}`, pid: child.pid, cpuSeconds: () => processCpuSeconds(child.pid), output: () => output, stop: () => stopChild(child) });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${mode} server exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

/** `nx run @tollgate/api:build` (also builds libs/*, whose dist the servers import); Nx skips it when nothing changed. */
export function buildApi(): { ok: boolean; message?: string } {
  try {
    execFileSync(path.join(ROOT, 'node_modules/.bin/nx'), ['run', '@tollgate/api:build', '--outputStyle=static'], {
      cwd: ROOT,
      env: { ...process.env, NX_DAEMON: 'false' },
      stdio: 'pipe',
      encoding: 'utf8',
    });
    return { ok: true };
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    return { ok: false, message: `${stdout ?? ''}${stderr ?? ''}`.trim().split('\n').slice(-15).join('\n') };
  }
}

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh database migrated with the real `prisma migrate deploy` (what `npm run db:migrate` runs). */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  const name = `tollgate_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
  const url = databaseUrl(name);
  const drop = async () => {
    const admin = new Client({ connectionString: TEST_DATABASE_ADMIN_URL });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  };
  try {
    await migrate(url, { quiet: true });
  } catch (error) {
    await drop();
    throw error;
  }
  return { url, drop };
}
