import fc from 'fast-check';
import type Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store';
import { RedisStore } from './redis-store';
import { connectTestRedis, deletePrefix, keysUnder, uniqueRedisPrefix } from './redis-test-client.test-util';
import type { CheckRequest, LimitCheck, QuotaCheck } from './types';
import { ALGORITHMS } from './validate-limit-params';

const limitArb: fc.Arbitrary<Omit<LimitCheck, 'name'>> = fc
  .record({
    algorithm: fc.constantFrom(...ALGORITHMS),
    limit: fc.integer({ min: 1, max: 12 }),
    windowMs: fc.oneof(fc.integer({ min: 1, max: 3000 }), fc.constantFrom(1000, 60_000, 86_400_000)),
    burst: fc.option(fc.integer({ min: 1, max: 15 }), { nil: undefined }),
    shaping: fc.boolean(),
    identity: fc.constantFrom('key:k1', 'owner:o1', 'plan:p1'),
  })
  .map(({ identity, shaping, ...p }) => ({
    identity,
    params: { ...p, ...(p.algorithm === 'leaky_bucket' && shaping ? { shaping: true } : {}) },
  }));

const quotaArb: fc.Arbitrary<QuotaCheck | undefined> = fc.option(
  fc.record({
    identity: fc.constant('key:k1'),
    limit: fc.integer({ min: 1, max: 40 }),
    period: fc.constantFrom('day' as const, 'month' as const),
    resetDay: fc.integer({ min: 1, max: 28 }),
  }),
  { nil: undefined },
);

const scenarioArb = fc.record({
  limits: fc.array(limitArb, { minLength: 1, maxLength: 3 }).map((ls) => ls.map((l, i) => ({ ...l, name: `l${i}` }))),
  quota: quotaArb,
  start: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
  steps: fc.array(
    fc.record({ gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 700 }), fc.integer({ min: 0, max: 90_000_000 })), cost: fc.integer({ min: 0, max: 4 }) }),
    { minLength: 1, maxLength: 60 },
  ),
});

/** Every key under a prefix (the prefix stripped): its contents, and its TTL in ms. */
async function redisState(redis: Redis, prefix: string): Promise<{ contents: Record<string, unknown>; ttls: Record<string, number> }> {
  const contents: Record<string, unknown> = {};
  const ttls: Record<string, number> = {};
  for (const key of await keysUnder(redis, prefix)) {
    const type = await redis.type(key);
    const name = key.slice(prefix.length);
    if (type === 'hash') contents[name] = await redis.hgetallBuffer(key);
    else if (type === 'list') contents[name] = await redis.lrange(key, 0, -1);
    else if (type === 'zset') contents[name] = await redis.zrange(key, 0, -1, 'WITHSCORES');
    else contents[name] = type;
    ttls[name] = await redis.pttl(key);
  }
  return { contents, ttls };
}

describe('memory store vs Redis store (differential, test clock)', () => {
  let redis: Redis;
  const prefixes: string[] = [];

  beforeAll(() => {
    redis = connectTestRedis();
  });
  afterAll(async () => {
    for (const p of prefixes) await deletePrefix(redis, p);
    redis.disconnect();
  });

  it('decides every random sequence identically (allowed, code, remaining, reset, retry, delay, quota)', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async ({ limits, quota, start, steps }) => {
        const prefix = uniqueRedisPrefix('diff');
        prefixes.push(prefix);
        const viaRedis = new RedisStore(redis, { prefix, testClock: true });
        const inMemory = new MemoryStore();
        let t = start;
        for (const step of steps) {
          t += step.gap;
          const req: CheckRequest = { limits, cost: step.cost, nowMs: t, ...(quota ? { quota } : {}) };
          const [a, b] = await Promise.all([viaRedis.check(req), inMemory.check(req)]);
          expect(a).toEqual(b);
        }
      }),
      { numRuns: 300 },
    );
  }, 120_000);

  // Requests made in one event-loop turn share an EVALSHA (redis-script-batch.ts). Each must
  // still be decided alone and in order: the whole sequence is sent at once, mixing request shapes
  // (different identities, limit counts, with and without a quota, a quota alone) and outcome-only calls,
  // which take no keys, so every request's keys must be found at the right offset in the batch.
  it('decides a whole sequence sent at once (batched EVALSHAs) exactly as one request at a time', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, scenarioArb, fc.integer({ min: 1, max: 40 }), async (first, second, maxBatch) => {
        const prefix = uniqueRedisPrefix('diffbatch');
        prefixes.push(prefix);
        const viaRedis = new RedisStore(redis, { prefix, testClock: true, maxBatch });
        const inMemory = new MemoryStore();
        const rename = (limits: LimitCheck[]) => limits.map((l) => ({ ...l, identity: l.identity.replace('1', '2') }));
        const quotaOnly = { ...second, limits: [], quota: { identity: 'key:k3', limit: 7, period: 'day' as const } };
        const shapes = [first, { ...second, limits: rename(second.limits), quota: second.quota && { ...second.quota, identity: 'key:k2' } }, quotaOnly];
        let t = Math.min(first.start, second.start);
        const requests: CheckRequest[] = [];
        for (let i = 0; i < Math.max(first.steps.length, second.steps.length); i++) {
          for (const shape of shapes) {
            const step = shape.steps[i];
            if (step === undefined) continue;
            t += step.gap;
            requests.push({ limits: shape.limits, cost: step.cost, nowMs: t, ...(shape.quota ? { quota: shape.quota } : {}) });
          }
        }
        const meter = { keyPrefix: 'usage:', member: 'key_batch' };
        // The same calls one at a time, on a store of their own, for the Redis state they leave.
        const oneByOnePrefix = uniqueRedisPrefix('diffbatch1');
        prefixes.push(oneByOnePrefix);
        const oneByOne = new RedisStore(redis, { prefix: oneByOnePrefix, testClock: true, maxBatch: 1 });
        for (let i = 0; i < requests.length; i++) {
          if (i % 3 === 0) await oneByOne.recordOutcome(meter, 'valid', requests[i].nowMs);
          await oneByOne.check(requests[i]);
        }
        const sent = requests.map((req, i) => (i % 3 === 0 ? [viaRedis.recordOutcome(meter, 'valid', req.nowMs), viaRedis.check(req)] : [viaRedis.check(req)]));
        const batched = await Promise.all(sent.map((calls) => calls[calls.length - 1]));
        await Promise.all(sent.flat());
        for (let i = 0; i < requests.length; i++) expect(batched[i]).toEqual(await inMemory.check(requests[i]));
        // Same keys, same contents (limit and quota state, deadlines, sliding logs, usage counts),
        // same TTLs up to the real time between the two runs.
        const [a, b] = await Promise.all([redisState(redis, prefix), redisState(redis, oneByOnePrefix)]);
        expect(a.contents).toEqual(b.contents);
        expect(Object.keys(a.ttls)).toEqual(Object.keys(b.ttls));
        for (const [key, ttl] of Object.entries(a.ttls)) expect(Math.abs(ttl - b.ttls[key])).toBeLessThan(5_000);
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  // A clock that steps back, and params that change (tighten or loosen) between requests. Times
  // only go back (or stay) here: the memory store drops an entry once read past its lifetime, while
  // with a test clock Redis keeps it (its TTL runs on real time), so a clock that went forward
  // past a lifetime and then back would legitimately differ; that cannot happen going backwards.
  it('stays identical when the clock steps back and params change mid-sequence', async () => {
    const paramsArb = limitArb.map((l) => l.params);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('key:k1', 'owner:o1'),
        fc.array(paramsArb, { minLength: 1, maxLength: 3 }),
        quotaArb,
        fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
        fc.array(fc.record({ back: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 5000 })), cost: fc.integer({ min: 0, max: 4 }), pick: fc.nat() }), {
          minLength: 1,
          maxLength: 60,
        }),
        async (identity, paramSets, quota, start, steps) => {
          const prefix = uniqueRedisPrefix('diffback');
          prefixes.push(prefix);
          const viaRedis = new RedisStore(redis, { prefix, testClock: true });
          const inMemory = new MemoryStore();
          // Params of one algorithm per limit name, so the state carries over when they change.
          const byAlgorithm = paramSets.map((p) => paramSets.filter((q) => q.algorithm === p.algorithm));
          let t = start;
          for (const step of steps) {
            t -= step.back;
            const limits: LimitCheck[] = [{ name: 'l', identity, params: byAlgorithm[0][step.pick % byAlgorithm[0].length] }];
            if (paramSets.length > 1) limits.push({ name: 'm', identity: 'plan:p1', params: byAlgorithm[1][step.pick % byAlgorithm[1].length] });
            const req: CheckRequest = { limits, cost: step.cost, nowMs: t, ...(quota ? { quota } : {}) };
            const [a, b] = await Promise.all([viaRedis.check(req), inMemory.check(req)]);
            expect(a).toEqual(b);
            for (const l of a.limits) expect(l.remaining).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 200 },
    );
  }, 120_000);

  it('stays identical with extreme params, where products pass 2^53 and doubles round', async () => {
    const huge = fc.record({
      algorithm: fc.constantFrom(...ALGORITHMS),
      limit: fc.integer({ min: 1, max: 1e9 }),
      windowMs: fc.integer({ min: 1_000_000_000, max: 2_678_400_000 }),
      burst: fc.integer({ min: 1, max: 1e9 }),
    });
    await fc.assert(
      fc.asyncProperty(huge, fc.array(fc.record({ gap: fc.integer({ min: 0, max: 5_000 }), cost: fc.integer({ min: 0, max: 1e9 }) }), { minLength: 1, maxLength: 30 }), async (params, steps) => {
        const prefix = uniqueRedisPrefix('diffhuge');
        prefixes.push(prefix);
        const viaRedis = new RedisStore(redis, { prefix, testClock: true });
        const inMemory = new MemoryStore();
        const limits: LimitCheck[] = [{ name: 'x', identity: 'key:h', params }];
        let t = Date.UTC(2026, 6, 1);
        for (const step of steps) {
          t += step.gap;
          const req: CheckRequest = { limits, cost: step.cost, nowMs: t };
          expect(await viaRedis.check(req)).toEqual(await inMemory.check(req));
        }
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
