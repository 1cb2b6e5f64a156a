// Child process of the engine suite: times one algorithm's pure function (or the MemoryStore) in
// a fresh V8 isolate, so one algorithm's type feedback cannot slow down another's measurement.
// Usage: node --import tsx bench/engine-pure-loop.ts <algorithm|store> <ms>
import { decideLimit, MemoryStore, validateLimitParams, type Algorithm, type LimitCheck, type LimitState } from '../libs/rate-limit/src/index';

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

/** MemoryStore.checkSync over 10 000 identities: map lookups, LRU upkeep, result objects. */
function store(ms: number): number {
  const memory = new MemoryStore({ maxEntries: 50_000 });
  const params = validateLimitParams({ algorithm: 'token_bucket', limit: 1_000_000, windowMs: 1000 });
  const checks: LimitCheck[][] = Array.from({ length: 10_000 }, (_, i) => [{ name: 'burst', identity: `key:${i}`, params }]);
  let now = 1_780_000_000_000;
  let ops = 0;
  const began = performance.now();
  const deadline = began + ms;
  while (performance.now() < deadline) {
    for (let i = 0; i < 4096; i++) {
      memory.checkSync({ limits: checks[(ops + i) % 10_000], nowMs: now });
      if ((i & 15) === 0) now++;
    }
    ops += 4096;
  }
  return (ops * 1000) / (performance.now() - began);
}

const [target, msText] = process.argv.slice(2);
const ms = Number(msText);
const measure = () => (target === 'store' ? store(ms) : pure(target as Algorithm, ms));
measure(); // warm-up run: tier up before the measured one
process.stdout.write(`${Math.round(measure())}\n`);
