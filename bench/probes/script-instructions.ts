// Driver of bench/probes/script-instructions.sh (run that, not this): sends N decisions of the
// guard bench's request (token bucket + sliding window + monthly quota + usage meter) to
// REDIS_URL in batches of exactly B (B checks made in one turn: one EVALSHA each), over
// KEYS=one key or KEYS=many (1 000 keys in turn, so a batch's keys are all distinct). METER=0 leaves
// the usage meter out (what the guard sends with `metering: false`), to price metering.
import Redis from 'ioredis';
import { RedisStore, type CheckRequest } from '@tollgate/rate-limit';
import { BENCH_LIMITS, BENCH_QUOTA } from '../guard/limits';

async function main(): Promise<void> {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6390');
  const decisions = Number(process.env.N ?? 12_800);
  const batch = Number(process.env.B ?? 16);
  const keys = process.env.KEYS === 'many' ? 1000 : 1;
  const metering = process.env.METER !== '0';
  const store = new RedisStore(redis, { prefix: 'tgprobe:instr:', maxBatch: batch });
  const requests: CheckRequest[] = Array.from({ length: keys }, (_, i) => {
    const identity = `key:k${i}`;
    return {
      limits: BENCH_LIMITS.map(({ name, ...params }) => ({ name, identity, params })),
      quota: { ...BENCH_QUOTA, identity, resetDay: 1 },
      meter: metering ? { keyPrefix: 'usage:', member: `k${i}` } : undefined,
    };
  });
  let sent = 0;
  while (sent < decisions) await Promise.all(Array.from({ length: batch }, () => store.check(requests[sent++ % keys])));
  redis.disconnect();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
