// Two servers loaded at the same time, each by a load generator process of its own: for comparing
// two variants whose difference is smaller than this machine's drift between runs in sequence.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './processes';

export interface SideBySideRun {
  /** 2xx answers per second of each side. */
  aRps: number;
  bRps: number;
  /** Answers that were not 2xx, and socket errors, of both. */
  notOk: number;
}

interface ChildResult {
  total: number;
  non2xx: number;
  errors: number;
  duration: number;
}

/**
 * Sets the CPUs a running process may use (`taskset -p -c`, Linux). False where that fails (no
 * taskset, not Linux): the caller then runs unpinned.
 */
export function pinProcess(pid: number | undefined, cpus: string): boolean {
  if (pid === undefined) return false;
  try {
    execFileSync('taskset', ['-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** One load generator (bench/guard/load-child.ts), started and waiting for its go; on `cpus` when given. */
function loadChild(url: string, secret: string, connections: number, seconds: number, cpus: string | undefined) {
  const node = [process.execPath, '--import', 'tsx', path.join(__dirname, 'load-child.ts'), url, secret, String(connections), String(seconds)];
  const [command, ...args] = cpus === undefined ? node : ['taskset', '-c', cpus, ...node];
  const child: ChildProcess = spawn(command, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (stdout.includes('READY\n')) markReady();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const result = new Promise<ChildResult>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) reject(new Error(`load generator for ${url} exited ${code}: ${stderr.trim().slice(-500)}`));
      else resolve(JSON.parse(line) as ChildResult);
    });
  });
  // A child that dies before READY must not leave the caller waiting for it.
  result.catch(() => markReady());
  return { child, ready, result };
}

/**
 * Loads `urlA` and `urlB` at the same time for `seconds`, `connections` each: both generators are
 * started first and released together, on `loadCpus` when given.
 */
export async function sideBySide(urlA: string, urlB: string, secret: string, connections: number, seconds: number, loadCpus?: string): Promise<SideBySideRun> {
  const a = loadChild(urlA, secret, connections, seconds, loadCpus);
  const b = loadChild(urlB, secret, connections, seconds, loadCpus);
  try {
    await Promise.all([a.ready, b.ready]);
    a.child.stdin!.write('go\n');
    b.child.stdin!.write('go\n');
    const [ra, rb] = await Promise.all([a.result, b.result]);
    const ok = (r: ChildResult) => Math.round((r.total - r.non2xx) / r.duration);
    return { aRps: ok(ra), bRps: ok(rb), notOk: ra.non2xx + ra.errors + rb.non2xx + rb.errors };
  } finally {
    for (const { child } of [a, b]) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
