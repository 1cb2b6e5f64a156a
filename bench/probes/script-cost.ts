// Probe (not part of `npm run bench`): Redis server CPU per guard decision inside the check
// script, as `INFO commandstats` counts it (usec of evalsha ÷ decisions), for the guard bench's
// request (token bucket + sliding window + monthly quota + usage meter, one key) sent one per
// EVALSHA and in batches. 64 decisions in flight from one process, Redis TIME, median of 5 runs.
//   npx tsx bench/probes/script-cost.ts
import Redis from 'ioredis';
import { RedisStore, type CheckRequest } from '@tollgate/rate-limit';
import { BENCH_LIMITS, BENCH_QUOTA } from '../guard/limits';
import { median } from '../stats';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DECISIONS = 60_000;
const IN_FLIGHT = 64;

async function evalshaUsec(redis: Redis): Promise<number> {
  const info = String(await redis.info('commandstats'));
  const line = info.split('\n').find((l) => l.startsWith('cmdstat_evalsha:'));
  return line === undefined ? 0 : Number(/usec=(\d+)/.exec(line)![1]);
}

async function usecPerDecision(redis: Redis, store: RedisStore, request: CheckRequest): Promise<number> {
  const before = await evalshaUsec(redis);
  let started = 0;
  const loop = async () => {
    while (started++ < DECISIONS) await store.check(request);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, loop));
  return ((await evalshaUsec(redis)) - before) / DECISIONS;
}

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const prefix = `tgprobe:script:${process.pid}:`;
  const identity = 'key:key_probe';
  const request: CheckRequest = {
    limits: BENCH_LIMITS.map(({ name, ...params }) => ({ name, identity, params })),
    quota: { ...BENCH_QUOTA, identity, resetDay: 1 },
    meter: { keyPrefix: 'usage:', member: 'key_probe' },
  };
  const shapes: Record<string, RedisStore> = {
    onePerEvalsha: new RedisStore(redis, { prefix, maxBatch: 1 }),
    batched: new RedisStore(redis, { prefix }),
  };
  try {
    for (const store of Object.values(shapes)) await usecPerDecision(redis, store, request);
    const runs = new Map(Object.keys(shapes).map((name) => [name, [] as number[]]));
    for (let rep = 0; rep < 5; rep++) for (const [name, store] of Object.entries(shapes)) runs.get(name)!.push(await usecPerDecision(redis, store, request));
    for (const [name, values] of runs) console.log(`${name.padEnd(14)} median ${median(values).toFixed(2)} us of Redis CPU per decision (runs ${values.map((v) => v.toFixed(2)).join(', ')})`);
  } finally {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
