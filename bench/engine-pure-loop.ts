// Child process of the engine suite: times one algorithm's pure function (or the MemoryStore) in
// a fresh V8 isolate, so one algorithm's type feedback cannot slow down another's measurement.
// Usage: node --import tsx bench/engine-pure-loop.ts <algorithm|store|store-churn> <ms>
// (after `npx nx run @tollgate/rate-limit:build`, which the engine suite runs)
// The built library (tsc's CommonJS in libs/rate-limit/dist, what the API runs), not the sources
// through tsx: tsx's CommonJS reads every imported function through two getters, which costs as
// much as a decision on the store path and is not what production pays. The engine suite builds
// dist first.
import type { Algorithm, LimitCheck, LimitState } from '../libs/rate-limit/src/index';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { decideLimit, MemoryStore, validateLimitParams } = require('../libs/rate-limit/dist/index.js') as typeof import('../libs/rate-limit/src/index');

function pure(algorithm: Algorithm, ms: number): number {
  // Generous limits keep every decision on the admit-and-update path, the costly one.
  const params = validateLimitParams({ algorithm, limit: 1_000_000, windowMs: 1000, burst: 1_000_000 });
  let state: LimitState | undefined;
  let now = 1_780_000_000_000;
  let ops = 0;
  const began = performance.now();
  const deadline = began + ms;
  while (performance.now() < deadline) {
    for (let i = 0; i < 4096; i++) {
      const d = decideLimit(state, now, params, 1);
      if (d.allowed) state = d.state;
      if ((i & 15) === 0) now++;
    }
    ops += 4096;
  }
  return (ops * 1000) / (performance.now() - began);
}

/**
 * MemoryStore.checkSync over 10 000 identities, one token-bucket limit each, every decision
 * admitted: what an in-process caller pays per decision (params/key cache, state lookup, LRU
 * upkeep, the pure function, the result objects).
 *
 * - `store`: every identity's state is live when it comes round again (burst 1e9 refilling
 *   1/s), so each decision reads and updates a stored entry: the steady state of active keys.
 * - `store-churn`: limit 1e6/s, so a state refills within 1 ms and has expired by the time its
 *   identity comes round again: each decision finds its entry expired, decides as from no state
 *   and rewrites that entry.
 */
function store(ms: number, churn: boolean): number {
  const memory = new MemoryStore({ maxEntries: 50_000 });
  const params = churn
    ? validateLimitParams({ algorithm: 'token_bucket', limit: 1_000_000, windowMs: 1000 })
    : validateLimitParams({ algorithm: 'token_bucket', limit: 1, windowMs: 1000, burst: 1_000_000_000 });
  const checks: LimitCheck[][] = Array.from({ length: 10_000 }, (_, i) => [{ name: 'burst', identity: `key:${i}`, params }]);
  let now = 1_780_000_000_000;
  let ops = 0;
  let admitted = 0;
  const began = performance.now();
  const deadline = began + ms;
  while (performance.now() < deadline) {
    for (let i = 0; i < 4096; i++) {
      if (memory.checkSync({ limits: checks[(ops + i) % 10_000], nowMs: now }).allowed) admitted++;
      if ((i & 15) === 0) now++;
    }
    ops += 4096;
  }
  const perSec = (ops * 1000) / (performance.now() - began);
  if (admitted !== ops) throw new Error(`store loop left the admit path: ${ops - admitted} rejected`);
  return perSec;
}

const [target, msText] = process.argv.slice(2);
const ms = Number(msText);
const measure = () => (target === 'store' || target === 'store-churn' ? store(ms, target === 'store-churn') : pure(target as Algorithm, ms));
measure(); // warm-up run: tier up before the measured one
process.stdout.write(`${Math.round(measure())}\n`);
