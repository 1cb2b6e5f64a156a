// Probe (not part of `npm run bench`): Node CPU per RedisStore.check of two builds of
// @tollgate/rate-limit in one process, alternating, so the machine's drift hits both alike: the
// built library (libs/rate-limit/dist) against another build at BEFORE_DIST. The guard bench's
// request (2 limits + quota + meter), 64 calls in flight against real Redis, 30 000 calls per run,
// 10 measured pairs (2 warm-up), median per build and median of the per-pair ratios.
//   git checkout <rev> -- libs/rate-limit/src
//   npx tsc -p libs/rate-limit/tsconfig.build.json --outDir /tmp/before-rl
//   git checkout HEAD -- libs/rate-limit/src && npx nx run @tollgate/rate-limit:build
//   BEFORE_DIST=/tmp/before-rl taskset -c 0 node --import tsx bench/probes/store-ab.ts
import { createRequire } from 'node:module';
import { RedisStore, type CheckRequest } from '@tollgate/rate-limit';
import Redis from 'ioredis';
import { BENCH_LIMITS, BENCH_QUOTA } from '../guard/limits';
import { median } from '../stats';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BEFORE_DIST = process.env.BEFORE_DIST;
if (!BEFORE_DIST) throw new Error('BEFORE_DIST: the directory of the other build (see the header)');
const { RedisStore: BeforeStore } = createRequire(__filename)(`${BEFORE_DIST}/index.js`) as { RedisStore: typeof RedisStore };
const PREFIX = `tgprobe:${process.pid}:`;
const CALLS = 30_000;

async function cpuPerCall(call: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const loop = async () => {
    while (started < CALLS) {
      started++;
      await call();
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: 64 }, loop));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / CALLS;
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const stores = { before: new BeforeStore(redis, { prefix: `${PREFIX}b:` }), after: new RedisStore(redis, { prefix: `${PREFIX}a:` }) };
  const request: CheckRequest = {
    limits: BENCH_LIMITS.map((limit) => ({ name: limit.name, identity: 'key:key_probe', params: { ...limit } })),
    cost: 1,
    quota: { identity: 'key:key_probe', ...BENCH_QUOTA, resetDay: 1 },
    meter: { keyPrefix: 'usage:', member: 'key_probe' },
  };
  const runs = { before: [] as number[], after: [] as number[] };
  try {
    for (let pair = 0; pair < 12; pair++) {
      const order = pair % 2 === 0 ? (['after', 'before'] as const) : (['before', 'after'] as const);
      for (const name of order) {
        const us = await cpuPerCall(() => stores[name].check(request));
        if (pair >= 2) runs[name].push(us);
      }
    }
    for (const name of ['before', 'after'] as const) console.log(`${name.padEnd(7)} median ${median(runs[name]).toFixed(2)} us CPU per check (runs ${runs[name].map((v) => v.toFixed(2)).join(', ')})`);
    const ratios = runs.after.map((v, i) => v / runs.before[i]);
    console.log(`after ÷ before, median of pairs ${median(ratios).toFixed(3)} (pairs ${ratios.map((v) => v.toFixed(2)).join(', ')})`);
  } finally {
    const keys = await redis.keys(`${PREFIX}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
