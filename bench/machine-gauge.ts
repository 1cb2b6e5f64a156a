// How fast this machine's CPUs are right now, recorded beside every suite's figures: the engine's
// MemoryStore loop (bench/engine-pure-loop.ts `store`) pinned to each CPU in turn. On the shared
// 2-vCPU VM the same code's figures follow the host: this loop has read 11 M/s on one vCPU one
// evening and 2.5-3.4 M/s on both the next morning, and one vCPU can be twice as slow as the other.
// A committed figure with its gauge says which kind of machine it came from. Absolute figures
// (ops/s, decisions/s) move with it; the ratios taken within one run much less.
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..');
/** Per CPU: a warm-up run and a measured run of this long. */
const GAUGE_MS = 500;

export interface MachineGauge {
  /** MemoryStore decisions/s of one process pinned to CPU i (unpinned, one entry, without taskset). */
  storeLoopOpsPerSecByCpu: number[];
  pinned: boolean;
}

/** Builds libs/rate-limit/dist, which the loop runs (Nx skips it when nothing changed). */
function buildEngine(): void {
  execFileSync(path.join(ROOT, 'node_modules/.bin/nx'), ['run', '@tollgate/rate-limit:build', '--outputStyle=static'], {
    cwd: ROOT,
    env: { ...process.env, NX_DAEMON: 'false' },
    stdio: 'pipe',
  });
}

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function storeLoop(cpu: number | undefined): number {
  const node = [process.execPath, '--import', 'tsx', path.join(__dirname, 'engine-pure-loop.ts'), 'store', String(GAUGE_MS)];
  const [command, ...args] = cpu === undefined ? node : ['taskset', '-c', String(cpu), ...node];
  return Number(execFileSync(command, args, { cwd: ROOT, encoding: 'utf8' }).trim());
}

/** Measures every CPU (at most 8), one after the other; about 1.5 s per CPU. */
export function gaugeMachine(): MachineGauge {
  buildEngine();
  if (!hasTaskset()) return { storeLoopOpsPerSecByCpu: [storeLoop(undefined)], pinned: false };
  const cpus = Math.min(availableParallelism(), 8);
  return { storeLoopOpsPerSecByCpu: Array.from({ length: cpus }, (_, cpu) => storeLoop(cpu)), pinned: true };
}
