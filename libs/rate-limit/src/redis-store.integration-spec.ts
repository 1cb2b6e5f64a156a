import type Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidLimitParamsError } from './errors';
import { identityStateKey, limitStateField, limitStateKey, meterBucketKey, meterIndexKey, QUOTA_FIELD, quotaKey } from './redis-key-layout';
import { recordInvalid, recordOutcome, RedisStore, type RedisScriptClient } from './redis-store';
import { ScriptRequestError } from './redis-script-batch';
import { connectTestRedis, deletePrefix, keysUnder, uniqueRedisPrefix } from './redis-test-client.test-util';
import type { LimitCheck } from './types';
import { ALGORITHMS } from './validate-limit-params';

const T0 = Date.UTC(2026, 5, 15, 9, 30);

describe('RedisStore', () => {
  let redis: Redis;
  const prefixes: string[] = [];
  function freshPrefix(label: string): string {
    const p = uniqueRedisPrefix(label);
    prefixes.push(p);
    return p;
  }

  beforeAll(() => {
    redis = connectTestRedis();
  });
  afterAll(async () => {
    for (const p of prefixes) await deletePrefix(redis, p);
    redis.disconnect();
  });

  it('400 requests at one instant against a token bucket of burst 100 refilling 10/s admit exactly 100', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('seed'), testClock: true });
    const limits: LimitCheck[] = [{ name: 'burst', identity: 'key:seed', params: { algorithm: 'token_bucket', limit: 10, windowMs: 1000, burst: 100 } }];
    const results = await Promise.all(Array.from({ length: 400 }, () => store.check({ limits, nowMs: T0 })));
    expect(results.filter((r) => r.allowed)).toHaveLength(100);
    expect(results.filter((r) => r.code === 'RATE_LIMITED').every((r) => r.retryAfterMs === 100)).toBe(true);
  });

  it('never over-admits with 500 parallel checks over 5 connections on Redis TIME', async () => {
    const prefix = freshPrefix('conc');
    const clients = Array.from({ length: 5 }, () => connectTestRedis());
    try {
      const stores = clients.map((c) => new RedisStore(c, { prefix }));
      const limits: LimitCheck[] = [
        { name: 'burst', identity: 'key:c', params: { algorithm: 'token_bucket', limit: 1, windowMs: 3_600_000, burst: 200 } },
        { name: 'hourly', identity: 'owner:c', params: { algorithm: 'sliding_log', limit: 137, windowMs: 3_600_000 } },
      ];
      const results = await Promise.all(Array.from({ length: 500 }, (_, i) => stores[i % 5].check({ limits })));
      expect(results.filter((r) => r.allowed)).toHaveLength(137);
      // The bucket was charged exactly once per admitted request: 200 - 137 = 63 left.
      const after = await stores[0].check({ limits: [limits[0]], cost: 0 });
      expect(after.limits[0].remaining).toBe(63);
    } finally {
      for (const c of clients) c.disconnect();
    }
  });

  it('charges no limit and no quota when one limit rejects (all-or-nothing)', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('aon'), testClock: true });
    const limits: LimitCheck[] = [
      { name: 'burst', identity: 'key:a', params: { algorithm: 'token_bucket', limit: 10, windowMs: 1000 } },
      { name: 'tight', identity: 'owner:o', params: { algorithm: 'fixed_window', limit: 2, windowMs: 60_000 } },
    ];
    const quota = { identity: 'key:a', limit: 100, period: 'day' as const };
    await store.check({ limits, quota, nowMs: T0 });
    await store.check({ limits, quota, nowMs: T0 });
    const third = await store.check({ limits, quota, nowMs: T0 });
    expect(third.code).toBe('RATE_LIMITED');
    expect(third.retryAfterMs).toBe(60_000); // T0 is a whole minute
    expect(third.limits.map((l) => [l.allowed, l.remaining])).toEqual([[true, 8], [false, 0]]);
    expect(third.quota!.remaining).toBe(98);
    const bucketOnly = await store.check({ limits: [limits[0]], quota, nowMs: T0 });
    expect(bucketOnly.limits[0].remaining).toBe(7);
    expect(bucketOnly.quota!.remaining).toBe(97);
  });

  it('sets a TTL on every key it writes, bounded by the state lifetime', async () => {
    const prefix = freshPrefix('ttl');
    const store = new RedisStore(redis, { prefix });
    const algorithms = ALGORITHMS;
    const limits: LimitCheck[] = algorithms.map((algorithm) => ({ name: algorithm, identity: 'key:t', params: { algorithm, limit: 5, windowMs: 10_000 } }));
    const res = await store.check({ limits, quota: { identity: 'key:tq', limit: 10, period: 'month' }, meter: { keyPrefix: 'usage:', member: 'key_t' } });
    expect(res.allowed).toBe(true);
    const keys = await keysUnder(redis, prefix);
    // The identity hash of key:t (5 limits), the sliding log's list, key:tq's hash (quota), meter bucket + index.
    expect(keys).toEqual(
      [
        identityStateKey(prefix, 'key:t'),
        limitStateKey(prefix, 'key:t', 'sliding_log', 'sliding_log'),
        quotaKey(prefix, 'key:tq'),
        meterBucketKey(prefix, 'usage:', Math.floor(res.nowMs / 60_000) * 60_000),
        meterIndexKey(prefix, 'usage:'),
      ].sort(),
    );
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      if (key.includes('{key:t}')) expect(ttl, key).toBeLessThanOrEqual(20_000);
    }
    const fields = await redis.hkeys(identityStateKey(prefix, 'key:t'));
    expect(fields.sort()).toEqual([...algorithms.filter((a) => a !== 'sliding_log').map((a) => limitStateField(a, a)), 'x'].sort());
    const quotaTtl = await redis.pttl(quotaKey(prefix, 'key:tq'));
    expect(quotaTtl).toBeLessThanOrEqual(res.quota!.resetAt - res.nowMs);
    expect(quotaTtl).toBeGreaterThan(res.quota!.resetAt - res.nowMs - 1000);
    // The quota state: two little-endian doubles, period start and used.
    const quotaState = (await redis.hgetBuffer(quotaKey(prefix, 'key:tq'), QUOTA_FIELD))!;
    expect([quotaState.length, quotaState.readDoubleLE(8)]).toEqual([16, 1]);
  });

  it('an identity hash lives as long as its longest-lived field: later short writes never shorten it', async () => {
    const prefix = freshPrefix('ttlmix');
    const store = new RedisStore(redis, { prefix });
    const bucket: LimitCheck[] = [{ name: 'b', identity: 'key:m', params: { algorithm: 'token_bucket', limit: 100, windowMs: 1000 } }];
    const quota = { identity: 'key:m', limit: 10, period: 'day' as const };
    const key = identityStateKey(prefix, 'key:m');
    await store.check({ limits: bucket });
    expect(await redis.pttl(key)).toBeLessThanOrEqual(10);
    await redis.pexpire(key, 60_000); // keep the short-lived field alive while the test runs
    const withQuota = await store.check({ limits: bucket, quota });
    const quotaLife = withQuota.quota!.resetAt - withQuota.nowMs;
    expect(await redis.pttl(key)).toBeGreaterThan(quotaLife - 1000);
    await store.check({ limits: bucket });
    expect(await redis.pttl(key)).toBeGreaterThan(quotaLife - 1000);
    expect((await store.check({ limits: [], quota, cost: 0 })).quota!.remaining).toBe(9);
  });

  it('falls back to SCRIPT LOAD after SCRIPT FLUSH (NOSCRIPT) and keeps deciding', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('noscript'), testClock: true });
    const limits: LimitCheck[] = [{ name: 'f', identity: 'key:n', params: { algorithm: 'fixed_window', limit: 2, windowMs: 60_000 } }];
    expect((await store.check({ limits, nowMs: T0 })).allowed).toBe(true);
    await redis.script('FLUSH');
    expect(await redis.script('EXISTS', RedisStore.scriptSha)).toEqual([0]);
    expect((await store.check({ limits, nowMs: T0 })).limits[0].remaining).toBe(0);
    expect(await redis.script('EXISTS', RedisStore.scriptSha)).toEqual([1]);
    expect((await store.check({ limits, nowMs: T0 })).allowed).toBe(false);
  });

  it('after NOSCRIPT, concurrent requests share one SCRIPT LOAD', async () => {
    let loads = 0;
    const counting: RedisScriptClient = {
      callBuffer: (...args) => redis.callBuffer(...args),
      script: (sub, body) => {
        loads++;
        return redis.script(sub, body);
      },
    };
    const store = new RedisStore(counting, { prefix: freshPrefix('noscript2'), testClock: true });
    const limits: LimitCheck[] = [{ name: 'f', identity: 'key:n2', params: { algorithm: 'fixed_window', limit: 100, windowMs: 60_000 } }];
    await redis.script('FLUSH');
    const results = await Promise.all(Array.from({ length: 50 }, () => store.check({ limits, nowMs: T0 })));
    expect(results.every((r) => r.allowed)).toBe(true);
    expect(loads).toBe(1);
    await redis.script('FLUSH');
    await store.check({ limits, nowMs: T0 });
    expect(loads).toBe(2);
  });

  it('sends the requests of one event-loop turn in one EVALSHA, in slices of maxBatch, decided in order', async () => {
    // Requests per EVALSHA (its replies), and the keys and arguments it carried.
    const calls: number[] = [];
    const shapes: { keys: number; args: number }[] = [];
    const counting: RedisScriptClient = {
      callBuffer: async (command, sha, numKeys, ...rest) => {
        shapes.push({ keys: Number(numKeys), args: rest.length - Number(numKeys) });
        const replies = await redis.callBuffer(command, sha, numKeys, ...rest);
        calls.push((replies as unknown[]).length);
        return replies;
      },
      script: (sub, body) => redis.script(sub, body),
    };
    const store = new RedisStore(counting, { prefix: freshPrefix('batch'), testClock: true, maxBatch: 8 });
    const limits: LimitCheck[] = [{ name: 'f', identity: 'key:b', params: { algorithm: 'fixed_window', limit: 12, windowMs: 60_000 } }];
    const results = await Promise.all(Array.from({ length: 20 }, () => store.check({ limits, nowMs: T0 })));
    expect(calls).toEqual([8, 8, 4]);
    // The batch's one key once, however many of its requests name it; every request in one argument.
    expect(shapes).toEqual([{ keys: 1, args: 1 }, { keys: 1, args: 1 }, { keys: 1, args: 1 }]);
    // In call order: the first 12 fit, each seeing the one before it charged.
    expect(results.map((r) => r.allowed)).toEqual([...Array(12).fill(true), ...Array(8).fill(false)]);
    expect(results.slice(0, 12).map((r) => r.limits[0].remaining)).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    // Requests made in later turns go out in their own EVALSHAs.
    calls.length = 0;
    await store.check({ limits, nowMs: T0 });
    await store.check({ limits, nowMs: T0 });
    expect(calls).toEqual([1, 1]);
  });

  it('names each key of a batch once and gives every request its own keys back, across identities, quotas and sliding logs', async () => {
    const prefix = freshPrefix('batchkeys');
    const keyCounts: number[] = [];
    const counting: RedisScriptClient = {
      callBuffer: (command, sha, numKeys, ...rest) => {
        keyCounts.push(Number(numKeys));
        return redis.callBuffer(command, sha, numKeys, ...rest);
      },
      script: (sub, body) => redis.script(sub, body),
    };
    const store = new RedisStore(counting, { prefix, testClock: true });
    const request = (id: string, limit: number) => ({
      limits: [
        { name: 'f', identity: `key:${id}`, params: { algorithm: 'fixed_window' as const, limit, windowMs: 60_000 } },
        { name: 'l', identity: `key:${id}`, params: { algorithm: 'sliding_log' as const, limit, windowMs: 60_000 } },
        { name: 'o', identity: 'owner:shared', params: { algorithm: 'fixed_window' as const, limit: 100, windowMs: 60_000 } },
      ],
      quota: { identity: `key:${id}`, limit: 50, period: 'day' as const },
      nowMs: T0,
    });
    // Interleaved: a, b, a, b, ... in one turn. Keys: key:a's hash and log, key:b's, the owner's hash.
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.check(request(i % 2 === 0 ? 'a' : 'b', i % 2 === 0 ? 3 : 4))));
    expect(keyCounts).toEqual([5]);
    // Each request saw its own counters: a's 3 of its 5 requests, b's 4 of its 5; all 7 on the owner.
    const a = results.filter((_, i) => i % 2 === 0);
    const b = results.filter((_, i) => i % 2 === 1);
    expect(a.map((r) => r.allowed)).toEqual([true, true, true, false, false]);
    expect(b.map((r) => r.allowed)).toEqual([true, true, true, true, false]);
    expect(a.map((r) => r.quota?.remaining)).toEqual([49, 48, 47, 47, 47]);
    expect(results.at(-1)!.limits.map((l) => l.remaining)).toEqual([0, 0, 93]);
    // The state landed on the right keys: one sliding log per key, the owner's hash counted 7.
    expect(await redis.llen(`${prefix}{key:a}:l:sl`)).toBeGreaterThan(0);
    expect(await redis.llen(`${prefix}{key:b}:l:sl`)).toBeGreaterThan(0);
    const owner = await store.check({ limits: [request('a', 3).limits[2]], cost: 0, nowMs: T0 });
    expect(owner.limits[0].remaining).toBe(93);
  });

  it('fails only the request whose key is broken, not the others in its batch', async () => {
    const prefix = freshPrefix('batcherr');
    const store = new RedisStore(redis, { prefix, testClock: true });
    const good: LimitCheck[] = [{ name: 'f', identity: 'key:ok', params: { algorithm: 'fixed_window', limit: 5, windowMs: 60_000 } }];
    const broken: LimitCheck[] = [{ name: 'f', identity: 'key:broken', params: { algorithm: 'fixed_window', limit: 5, windowMs: 60_000 } }];
    // Not a hash: HMGET on it fails with WRONGTYPE.
    await redis.set(identityStateKey(prefix, 'key:broken'), 'not a hash');
    const [a, b, c] = await Promise.allSettled([store.check({ limits: good, nowMs: T0 }), store.check({ limits: broken, nowMs: T0 }), store.check({ limits: good, nowMs: T0 })]);
    expect(a).toMatchObject({ status: 'fulfilled', value: { allowed: true, limits: [{ remaining: 4 }] } });
    expect(b.status).toBe('rejected');
    expect((b as PromiseRejectedResult).reason).toBeInstanceOf(ScriptRequestError);
    expect(String((b as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    expect(c).toMatchObject({ status: 'fulfilled', value: { allowed: true, limits: [{ remaining: 3 }] } });
  });

  it('fails a call whose request length cannot be right instead of looping in Redis', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('badlen'), testClock: true });
    await store.check({ limits: [], nowMs: T0 }); // loads the script
    // A header whose length field is 0 (or anything shorter than the header itself).
    await expect(redis.callBuffer('EVALSHA', RedisStore.scriptSha, 0, Buffer.alloc(64))).rejects.toThrow(/bad request length/);
    expect(await redis.ping()).toBe('PONG');
  });

  it('refuses a maxBatch outside 1..1000', () => {
    for (const maxBatch of [0, 1.5, 1001]) expect(() => new RedisStore(redis, { maxBatch })).toThrow(/maxBatch/);
  });

  it('sums the usage counts of a batch per bucket and field: nothing lost, nothing doubled, buckets indexed', async () => {
    const prefix = freshPrefix('batchmeter');
    const store = new RedisStore(redis, { prefix, testClock: true });
    const limits: LimitCheck[] = [{ name: 'f', identity: 'key:bm', params: { algorithm: 'fixed_window', limit: 5, windowMs: 60_000 } }];
    const meterA = { keyPrefix: 'usage:', member: 'key_a' };
    const meterB = { keyPrefix: 'usage:', member: 'key_b' };
    const minute = Date.UTC(2026, 5, 15, 9, 30);
    // One turn: 8 checks of key_a in one minute (5 pass), 3 outcome-only calls of key_b, and 2
    // checks in the next minute (a new window: both pass).
    await Promise.all([
      ...Array.from({ length: 8 }, () => store.check({ limits, meter: meterA, nowMs: minute + 5 })),
      store.recordOutcome(meterB, 'invalid', minute + 6),
      store.recordOutcome(meterB, 'invalid', minute + 7, 4),
      store.recordOutcome(meterB, 'quotaExceeded', minute + 8),
      store.check({ limits, meter: meterA, nowMs: minute + 60_000 }),
      store.check({ limits, meter: meterA, nowMs: minute + 60_001 }),
    ]);
    expect(await redis.hgetall(meterBucketKey(prefix, 'usage:', minute))).toEqual({
      'key_a|valid': '5',
      'key_a|rateLimited': '3',
      'key_b|invalid': '5',
      'key_b|quotaExceeded': '1',
    });
    expect(await redis.hgetall(meterBucketKey(prefix, 'usage:', minute + 60_000))).toEqual({ 'key_a|valid': '2' });
    expect(await redis.zrange(meterIndexKey(prefix, 'usage:'), 0, -1)).toEqual([String(minute), String(minute + 60_000)]);
    expect(await redis.pttl(meterBucketKey(prefix, 'usage:', minute + 60_000))).toBeGreaterThan(172_000_000);
  });

  it('keeps a sliding log list to one entry per ms: cost 0 adds nothing, the same ms merges, an emptied log is deleted', async () => {
    const prefix = freshPrefix('slbound');
    const store = new RedisStore(redis, { prefix, testClock: true });
    const limits: LimitCheck[] = [{ name: 'l', identity: 'key:sl', params: { algorithm: 'sliding_log', limit: 1000, windowMs: 1000 } }];
    const key = limitStateKey(prefix, 'key:sl', 'l', 'sliding_log');
    for (let i = 0; i < 90; i++) await store.check({ limits, nowMs: T0 + Math.floor(i / 30) });
    // The clock stepping back is held at the newest entry: merged into it as well.
    await store.check({ limits, cost: 2, nowMs: T0 });
    for (let i = 0; i < 50; i++) await store.check({ limits, cost: 0, nowMs: T0 + 2 });
    // Header [sum, newest] + 3 entries.
    expect(await redis.lrange(key, 0, -1)).toEqual(['92', String(T0 + 2), String(T0), '30', String(T0 + 1), '30', String(T0 + 2), '32']);
    expect((await store.check({ limits, cost: 0, nowMs: T0 + 1000 })).limits[0].remaining).toBe(938);
    expect(await redis.lrange(key, 0, -1)).toEqual(['62', String(T0 + 2), String(T0 + 1), '30', String(T0 + 2), '32']);
    expect((await store.check({ limits, nowMs: T0 + 1001 })).limits[0].remaining).toBe(967);
    expect(await redis.lrange(key, 0, -1)).toEqual(['33', String(T0 + 1001), String(T0 + 2), '32', String(T0 + 1001), '1']);
    expect((await store.check({ limits, cost: 0, nowMs: T0 + 2001 })).limits[0]).toMatchObject({ remaining: 1000, resetMs: 0 });
    expect(await redis.exists(key)).toBe(0);
  });

  it('refuses nowMs unless built with testClock', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('clock') });
    await expect(store.check({ limits: [], nowMs: T0 })).rejects.toBeInstanceOf(InvalidLimitParamsError);
    const res = await store.check({ limits: [] });
    const [sec] = await redis.time();
    expect(Math.abs(res.nowMs - Number(sec) * 1000)).toBeLessThan(5000);
  });

  it('counts a day quota per UTC day and resets at midnight', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('qday'), testClock: true });
    const quota = { identity: 'key:q', limit: 3, period: 'day' as const };
    const lastMs = Date.UTC(2026, 5, 15, 23, 59, 59, 999);
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await store.check({ limits: [], quota, cost: 1, nowMs: lastMs })).code);
    expect(codes).toEqual(['VALID', 'VALID', 'VALID', 'QUOTA_EXCEEDED']);
    const exceeded = await store.check({ limits: [], quota, nowMs: lastMs });
    expect(exceeded).toMatchObject({ allowed: false, retryAfterMs: 1, quota: { limit: 3, remaining: 0, resetAt: Date.UTC(2026, 5, 16) } });
    const next = await store.check({ limits: [], quota, nowMs: Date.UTC(2026, 5, 16) });
    expect(next).toMatchObject({ code: 'VALID', quota: { remaining: 2, resetAt: Date.UTC(2026, 5, 17) } });
  });

  it('counts a month quota from resetDay 00:00 UTC to the next month, across a year end', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('qmonth'), testClock: true });
    const quota = { identity: 'key:m', limit: 10, period: 'month' as const, resetDay: 15 };
    const before = await store.check({ limits: [], quota, cost: 10, nowMs: Date.UTC(2027, 0, 14, 23, 59, 59, 999) });
    expect(before.quota).toEqual({ limit: 10, remaining: 0, resetAt: Date.UTC(2027, 0, 15) });
    expect((await store.check({ limits: [], quota, nowMs: Date.UTC(2027, 0, 14, 23, 59, 59, 999) })).code).toBe('QUOTA_EXCEEDED');
    const after = await store.check({ limits: [], quota, cost: 4, nowMs: Date.UTC(2027, 0, 15) });
    expect(after.quota).toEqual({ limit: 10, remaining: 6, resetAt: Date.UTC(2027, 1, 15) });
    const dec = await store.check({ limits: [], quota: { ...quota, identity: 'key:dec' }, nowMs: Date.UTC(2026, 11, 31) });
    expect(dec.quota!.resetAt).toBe(Date.UTC(2027, 0, 15));
    const neverFits = await store.check({ limits: [], quota, cost: 11, nowMs: Date.UTC(2027, 0, 15) });
    expect(neverFits).toMatchObject({ code: 'QUOTA_EXCEEDED', neverFits: true, retryAfterMs: Infinity });
  });

  it('a rate-limited request spends no quota; a quota-exceeded one charges no limit', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('qorder'), testClock: true });
    const limits: LimitCheck[] = [{ name: 'rps', identity: 'key:o', params: { algorithm: 'gcra', limit: 1, windowMs: 1000, burst: 2 } }];
    const quota = { identity: 'key:o', limit: 3, period: 'day' as const };
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await store.check({ limits, quota, nowMs: T0 })).code);
    expect(codes).toEqual(['VALID', 'VALID', 'RATE_LIMITED']);
    expect((await store.check({ limits, quota, nowMs: T0 + 1000 })).quota!.remaining).toBe(0);
    const over = await store.check({ limits, quota, nowMs: T0 + 2000 });
    expect(over.code).toBe('QUOTA_EXCEEDED');
    // gcra not charged by the quota-exceeded request: 2 unit requests still fit at T0 + 2000.
    expect(over.limits[0].remaining).toBe(1);
  });

  it('meters every outcome into minute buckets with a 2-day TTL and an index', async () => {
    const prefix = freshPrefix('meter');
    const store = new RedisStore(redis, { prefix, testClock: true });
    const meter = { keyPrefix: 'usage:', member: 'key_1' };
    const limits: LimitCheck[] = [{ name: 'f', identity: 'key:1', params: { algorithm: 'fixed_window', limit: 2, windowMs: 60_000 } }];
    const minute = Date.UTC(2026, 5, 15, 9, 30);
    for (let i = 0; i < 3; i++) await store.check({ limits, meter, nowMs: minute + 10 });
    await store.check({ limits: [], quota: { identity: 'key:1', limit: 1, period: 'day' }, cost: 2, meter, nowMs: minute + 20 });
    await recordInvalid(store, meter, minute + 59_999);
    await store.check({ limits, meter: { ...meter, member: 'key_2' }, nowMs: minute + 60_000 });
    const bucket = meterBucketKey(prefix, 'usage:', minute);
    expect(await redis.hgetall(bucket)).toEqual({ 'key_1|valid': '2', 'key_1|rateLimited': '1', 'key_1|quotaExceeded': '1', 'key_1|invalid': '1' });
    // Outcomes decided elsewhere (e.g. locally by the guard) land in the same fields, one call each.
    await store.recordOutcome(meter, 'valid', minute + 30_000);
    await recordOutcome(store, meter, 'rateLimited', minute + 30_000);
    await store.recordOutcome(meter, 'quotaExceeded', minute + 30_000);
    await store.recordOutcome(meter, 'invalid', minute + 30_000);
    await store.recordOutcome({ keyPrefix: 'usage:', member: 'key_3' }, 'rateLimited', minute + 30_000);
    expect(await redis.hgetall(bucket)).toEqual({
      'key_1|valid': '3',
      'key_1|rateLimited': '2',
      'key_1|quotaExceeded': '2',
      'key_1|invalid': '2',
      'key_3|rateLimited': '1',
    });
    await expect(store.recordOutcome(meter, 'bogus' as never, minute)).rejects.toBeInstanceOf(InvalidLimitParamsError);
    // Several decisions in one call (a guard flushing the refusals it took locally); a new
    // bucket is still created with its TTL and index entry when the first write is a batch.
    await store.recordOutcome({ keyPrefix: 'usage:', member: 'key_3' }, 'rateLimited', minute + 30_000, 7);
    expect(await redis.hget(bucket, 'key_3|rateLimited')).toBe('8');
    const later = minute + 5 * 60_000;
    await recordOutcome(store, { keyPrefix: 'usage:', member: 'key_4' }, 'rateLimited', later, 5);
    expect(await redis.hgetall(meterBucketKey(prefix, 'usage:', later))).toEqual({ 'key_4|rateLimited': '5' });
    expect(await redis.pttl(meterBucketKey(prefix, 'usage:', later))).toBeGreaterThan(172_700_000);
    await expect(store.recordOutcome(meter, 'valid', minute, 0)).rejects.toBeInstanceOf(InvalidLimitParamsError);
    expect(await redis.hgetall(meterBucketKey(prefix, 'usage:', minute + 60_000))).toEqual({ 'key_2|valid': '1' });
    expect(await redis.zrange(meterIndexKey(prefix, 'usage:'), 0, -1, 'WITHSCORES')).toEqual([String(minute), String(minute), String(minute + 60_000), String(minute + 60_000), String(later), String(later)]);
    const ttl = await redis.pttl(bucket);
    expect(ttl).toBeGreaterThan(172_700_000);
    expect(ttl).toBeLessThanOrEqual(172_800_000);
  });

  it('shapes a leaky bucket on Redis exactly like the pure function', async () => {
    const store = new RedisStore(redis, { prefix: freshPrefix('shape'), testClock: true });
    const limits: LimitCheck[] = [{ name: 's', identity: 'key:s', params: { algorithm: 'leaky_bucket', limit: 2, windowMs: 1000, burst: 2, shaping: true } }];
    const out = [];
    for (let i = 0; i < 5; i++) {
      const r = await store.check({ limits, nowMs: T0 });
      out.push([r.allowed, r.delayMs]);
    }
    expect(out).toEqual([[true, 0], [true, 0], [true, 500], [true, 1000], [false, 0]]);
  });
});
