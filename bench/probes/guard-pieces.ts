// Probe (not part of `npm run bench`): Node CPU per call of two pieces of the guard's hot path,
// 64 calls in flight, median of 5 interleaved runs:
//   barePromise   an awaited resolved promise (the floor of the two below)
//   deadlinesRun  Deadlines.run around a store call that answers at once (the 50 ms deadline)
//   keyCacheHit   KeyCache.get of a cached key, by a freshly computed SHA-256 hex string each time
//   sha256        that hash alone (subtract it from keyCacheHit)
// Runs the TypeScript sources through tsx, so an earlier version is measured by checking out its
// libs/nest-guard/src/{deadlines,key-cache}.ts.
//   taskset -c 0 node --import tsx bench/probes/guard-pieces.ts
import { hash } from 'node:crypto';
import { Deadlines } from '../../libs/nest-guard/src/deadlines';
import { KeyCache } from '../../libs/nest-guard/src/key-cache';
import type { KeyRecord } from '../../libs/nest-guard/src/key-record';
import { median } from '../stats';

const CALLS = 400_000;

async function nsPerCall(call: (i: number) => Promise<unknown>): Promise<number> {
  let started = 0;
  const loop = async () => {
    while (started < CALLS) await call(started++);
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: 64 }, loop));
  const used = process.cpuUsage(before);
  return ((used.user + used.system) * 1000) / CALLS;
}

async function main(): Promise<void> {
  const deadlines = new Deadlines(50);
  const record: KeyRecord = { id: 'key_probe', ownerId: null, planId: 'plan_probe', enabled: true, expiresAt: null, limits: [], quota: null, failMode: 'closed' };
  const cache = new KeyCache(async () => record);
  const secret = 'tg_probe_secret_abcdefghijklmnopqrstuv';
  await cache.get(hash('sha256', secret, 'hex'));
  const shapes: Record<string, (i: number) => Promise<unknown>> = {
    barePromise: (i) => Promise.resolve(i),
    deadlinesRun: (i) => deadlines.run(Promise.resolve(i)),
    keyCacheHit: () => cache.get(hash('sha256', secret, 'hex')),
    sha256: async () => hash('sha256', secret, 'hex'),
  };
  for (const call of Object.values(shapes)) await nsPerCall(call);
  const runs = new Map(Object.keys(shapes).map((name) => [name, [] as number[]]));
  for (let rep = 0; rep < 5; rep++) for (const [name, call] of Object.entries(shapes)) runs.get(name)!.push(await nsPerCall(call));
  for (const [name, values] of runs) {
    console.log(`${name.padEnd(13)} median ${median(values).toFixed(0)} ns CPU per call (runs ${values.map((v) => v.toFixed(0)).join(', ')})`);
  }
}

main().then(
  () => process.exit(0), // the last deadline timer is unref'd, but do not wait for anything
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
