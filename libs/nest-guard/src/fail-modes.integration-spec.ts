import { meterBucketKey, meterIndexKey } from '@tollgate/rate-limit';
import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueRedisPrefix } from '../../../test/support/redis';
import { get, KeyTable, startGuardApp, TEST_REDIS_URL, waitUntil, type GuardApp } from './guard-app.test-util';
import type { FailMode, KeyRecord } from './key-record';
import { KeyVerifier, USAGE_METER_PREFIX } from './key-verifier';
import { TcpProxy } from './tcp-proxy.test-util';

function rec(id: string, failMode: FailMode, limit = 3): KeyRecord {
  return {
    id,
    ownerId: null,
    planId: 'plan_fail',
    enabled: true,
    expiresAt: null,
    limits: [{ name: 'per_min', algorithm: 'fixed_window', limit, windowMs: 600_000, scope: 'key' }],
    quota: null,
    failMode,
  };
}

async function timedGet(url: string, secret: string) {
  const started = performance.now();
  const res = await get(url, secret);
  return { res, ms: performance.now() - started, body: (await res.json()) as any };
}

describe('Redis outages, really cut through a TCP proxy', () => {
  const table = new KeyTable();
  const prefix = uniqueRedisPrefix('nest-guard-fail');
  let proxy: TcpProxy;
  let guard: GuardApp;

  beforeAll(async () => {
    table.set('tg_closed', rec('k_closed', 'closed', 1000));
    table.set('tg_open', rec('k_open', 'open', 1000));
    table.set('tg_local', rec('k_local', 'local', 3));
    table.set('tg_blocked', rec('k_blocked', 'closed', 1));
    proxy = await TcpProxy.start(TEST_REDIS_URL);
    // Shortcut refusals are sent to the usage buckets only when this test says so (flushMeter).
    guard = await startGuardApp({ redis: proxy.url, prefix, lookup: table.lookup, storeTimeoutMs: 50, meterFlushMs: 3_600_000 });
    await waitUntil(() => guard.verifier.health().invalidation === 'live');
    for (const secret of ['tg_closed', 'tg_open']) expect((await get(`${guard.url}/echo`, secret)).status).toBe(200);
  });

  afterAll(async () => {
    await guard?.close();
    await proxy?.cut();
  });

  it('blocked-key shortcut: once refused, 20 more requests of that key are refused without a byte sent to Redis', async () => {
    expect((await get(`${guard.url}/echo`, 'tg_blocked')).status).toBe(200);
    expect((await get(`${guard.url}/echo`, 'tg_blocked')).status).toBe(429);
    const bytes = proxy.bytesToTarget;
    const shortcutsBefore = guard.verifier.counters.blockedShortcuts;
    for (let i = 0; i < 20; i++) {
      const res = await get(`${guard.url}/echo`, 'tg_blocked');
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(proxy.bytesToTarget).toBe(bytes);
    expect(guard.verifier.counters.blockedShortcuts - shortcutsBefore).toBe(20);

    // They are still counted: one batched call sends all 20 to the usage buckets.
    await guard.verifier.flushMeter();
    expect(proxy.bytesToTarget).toBeGreaterThan(bytes);
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const buckets = await redis.zrange(meterIndexKey(prefix, USAGE_METER_PREFIX), 0, -1);
      let refused = 0;
      for (const minute of buckets) refused += Number((await redis.hget(meterBucketKey(prefix, USAGE_METER_PREFIX, Number(minute)), 'k_blocked|rateLimited')) ?? 0);
      expect(refused).toBe(21); // the first refusal came from Redis's own check, the 20 from the shortcut
    } finally {
      redis.disconnect();
    }
  });

  it('connection cut: closed -> 503 STORE_UNAVAILABLE fast, open -> 200 degraded and counted, local -> enforced in-process; recovery is automatic', async () => {
    const lookupsBefore = table.lookups;
    await proxy.cut();

    const closed = await timedGet(`${guard.url}/echo`, 'tg_closed');
    expect(closed.res.status).toBe(503);
    expect(closed.res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(closed.res.headers.get('retry-after')).toBe('1');
    expect(closed.res.headers.get('ratelimit-policy')).toBe('"per_min";q=1000;w=600');
    // The state is unknown: the policy item with r=0;t=0, and every X-RateLimit-* header.
    expect(closed.res.headers.get('ratelimit')).toBe('"per_min";r=0;t=0');
    expect(closed.res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(closed.res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(closed.res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
    expect(closed.body).toMatchObject({ status: 503, code: 'STORE_UNAVAILABLE', title: 'Service Unavailable' });
    expect(closed.ms).toBeLessThan(250);

    const degradedBefore = guard.verifier.counters.degradedDecisions;
    const open = await timedGet(`${guard.url}/echo`, 'tg_open');
    expect(open.res.status).toBe(200);
    expect(open.body).toEqual({ keyId: 'k_open', degraded: true });
    expect(open.ms).toBeLessThan(250);
    // Real numbers from the instance's own counters (empty until now: 1 of 1000 used).
    expect(open.res.headers.get('ratelimit-policy')).toBe('"per_min";q=1000;w=600');
    expect(open.res.headers.get('ratelimit')).toMatch(/^"per_min";r=999;t=\d+$/);
    expect(open.res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(open.res.headers.get('x-ratelimit-remaining')).toBe('999');
    expect(Number(open.res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
    expect(guard.verifier.counters.degradedDecisions).toBe(degradedBefore + 1);

    const local = [];
    for (let i = 0; i < 5; i++) {
      const res = (await timedGet(`${guard.url}/echo`, 'tg_local')).res;
      local.push([res.status, res.headers.get('x-ratelimit-remaining')]);
    }
    expect(local).toEqual([[200, '2'], [200, '1'], [200, '0'], [429, '0'], [429, '0']]);
    expect(guard.verifier.counters.degradedDecisions).toBe(degradedBefore + 1 + 5);
    expect(guard.verifier.counters.storeFailures).toBeGreaterThanOrEqual(5);
    expect(guard.verifier.health()).toMatchObject({ store: 'degraded' });
    expect(guard.verifier.health().breaker).not.toBe('closed');

    // Breaker open: refused at once, without waiting for the 50 ms timeout.
    const fast = await timedGet(`${guard.url}/echo`, 'tg_closed');
    expect(fast.res.status).toBe(503);

    await proxy.restore();
    const recoveredIn = await waitUntil(async () => (await get(`${guard.url}/echo`, 'tg_closed')).status === 200, 5000, 50);
    expect(recoveredIn).toBeLessThan(3000);
    await waitUntil(() => guard.verifier.health().invalidation === 'live', 3000);
    expect(guard.verifier.health()).toEqual({ store: 'up', breaker: 'closed', invalidation: 'live' });
    // Invalidations may have been missed while cut: the cache was emptied and keys reloaded.
    const open2 = await timedGet(`${guard.url}/echo`, 'tg_open');
    expect(open2.body).toEqual({ keyId: 'k_open', degraded: false });
    expect(table.lookups).toBeGreaterThan(lookupsBefore);
  });

  it('stalled link (Redis too slow): answers come after the 50 ms timeout, not when Redis answers', async () => {
    await waitUntil(() => guard.verifier.health().breaker === 'closed', 3000);
    proxy.pause();
    try {
      const first = await timedGet(`${guard.url}/echo`, 'tg_closed');
      expect(first.res.status).toBe(503);
      expect(first.ms).toBeGreaterThanOrEqual(45);
      expect(first.ms).toBeLessThan(200);
      const open = await timedGet(`${guard.url}/echo`, 'tg_open');
      expect(open.res.status).toBe(200);
      expect(open.ms).toBeLessThan(200);
      for (let i = 0; i < 5; i++) await timedGet(`${guard.url}/echo`, 'tg_closed');
      expect(guard.verifier.health().breaker).toBe('open');
      const whileOpen = await timedGet(`${guard.url}/echo`, 'tg_closed');
      expect(whileOpen.res.status).toBe(503);
      expect(whileOpen.ms).toBeLessThan(45);
    } finally {
      proxy.resume();
    }
    await waitUntil(async () => (await get(`${guard.url}/echo`, 'tg_closed')).status === 200, 5000, 50);
    expect(guard.verifier.health().store).toBe('up');
  });

  it('/health-style probe: breaker open, Redis back, no traffic at all -> healthy again', async () => {
    await waitUntil(() => guard.verifier.health().breaker === 'closed', 3000);
    await proxy.cut();
    for (let i = 0; i < 5; i++) expect((await get(`${guard.url}/echo`, 'tg_closed')).status).toBe(503);
    expect(guard.verifier.health()).toMatchObject({ store: 'degraded', breaker: 'open' });
    await proxy.restore();
    const decisions = { ...guard.verifier.counters };
    // No request reaches the guard from here on: only what /health does.
    await waitUntil(async () => (await guard.verifier.probe()).breaker === 'closed', 5000, 100);
    expect(guard.verifier.health()).toMatchObject({ store: 'up', breaker: 'closed' });
    expect(guard.verifier.counters.storeUnavailable).toBe(decisions.storeUnavailable);
    expect(guard.verifier.counters.degradedDecisions).toBe(decisions.degradedDecisions);
  });

  it('401 without a defaultPolicy: WWW-Authenticate only, no rate-limit headers (no key, no limits known)', async () => {
    const res = await get(`${guard.url}/echo`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.headers.get('ratelimit-policy')).toBeNull();
    expect(res.headers.get('ratelimit')).toBeNull();
  });
});

describe('the invalidation connection across a flapping link', () => {
  it('closing while a reconnect\'s SUBSCRIBE is unanswered leaves no unhandled rejection (one would end the process)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (let round = 0; round < 3; round++) {
        const proxy = await TcpProxy.start(TEST_REDIS_URL);
        const verifier = new KeyVerifier({ redis: proxy.url, prefix: uniqueRedisPrefix('nest-guard-flap'), lookup: async () => null });
        try {
          await verifier.start();
          await waitUntil(() => verifier.health().invalidation === 'live', 3000);
          // Cut the link and bring it back; the moment the subscriber is ready again (its SUBSCRIBE
          // just sent), cut it once more and shut down: the unanswered SUBSCRIBE is then rejected.
          const connection = (verifier as unknown as { subscriber: { connection: Redis } }).subscriber.connection;
          await proxy.cut();
          const ready = new Promise<void>((resolve) => connection.once('ready', () => resolve()));
          await proxy.restore();
          await ready;
          await proxy.cut();
        } finally {
          await verifier.close();
          await proxy.cut();
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 60_000);
});
