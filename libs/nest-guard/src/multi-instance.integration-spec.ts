import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueRedisPrefix } from '../../../test/support/redis';
import { get, KeyTable, startGuardApp, TEST_REDIS_URL, waitUntil, type GuardApp } from './guard-app.test-util';
import { publishInvalidation } from './invalidation';
import type { GuardLimit, KeyRecord } from './key-record';

function rec(id: string, limits: GuardLimit[], extra: Partial<KeyRecord> = {}): KeyRecord {
  return { id, ownerId: null, planId: 'plan_multi', enabled: true, expiresAt: null, limits, quota: null, failMode: 'closed', ...extra };
}

describe('two instances (two Nest apps, separate Redis connections) sharing one Redis', () => {
  const table = new KeyTable();
  const prefix = uniqueRedisPrefix('nest-guard-multi');
  let a: GuardApp;
  let b: GuardApp;
  let admin: Redis;

  beforeAll(async () => {
    table.set('tg_hundred', rec('k_hundred', [{ name: 'exact', algorithm: 'sliding_log', limit: 100, windowMs: 600_000, scope: 'key' }]));
    table.set('tg_change', rec('k_change', [{ name: 'tight', algorithm: 'sliding_log', limit: 1, windowMs: 600_000, scope: 'key' }]));
    table.set('tg_disable', rec('k_disable', []));
    table.set('tg_plan1', rec('k_plan1', [{ name: 'tight', algorithm: 'fixed_window', limit: 1, windowMs: 600_000, scope: 'key' }], { planId: 'plan_shared' }));
    table.set('tg_plan2', rec('k_plan2', [{ name: 'tight', algorithm: 'fixed_window', limit: 1, windowMs: 600_000, scope: 'key' }], { planId: 'plan_shared' }));
    // This suite tests counting across instances, not the store deadline: with the contract's
    // strict 50 ms, 300 concurrent requests on a busy test machine would partly end as 503
    // STORE_UNAVAILABLE (fail-modes.integration-spec.ts covers the deadline).
    const options = { redis: TEST_REDIS_URL, prefix, lookup: table.lookup, storeTimeoutMs: 2000 };
    [a, b] = await Promise.all([
      startGuardApp(options),
      // B is configured through forRootAsync, so both module entry points are exercised.
      startGuardApp(options, true),
    ]);
    admin = new Redis(TEST_REDIS_URL);
    await waitUntil(() => a.verifier.health().invalidation === 'live' && b.verifier.health().invalidation === 'live');
  });

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close(), admin?.quit()]);
  });

  it('300 concurrent requests on a key limited to 100, split over both instances, admit exactly 100', async () => {
    const responses = await Promise.all(Array.from({ length: 300 }, (_, i) => get(`${(i % 2 === 0 ? a : b).url}/echo`, 'tg_hundred')));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(100);
    expect(statuses.filter((s) => s === 429)).toHaveLength(200);
    // Both instances admitted some: the limit really is shared, not per instance.
    const admittedByA = statuses.filter((s, i) => s === 200 && i % 2 === 0).length;
    expect(admittedByA).toBeGreaterThan(0);
    expect(admittedByA).toBeLessThan(100);
    const minutes = await admin.zrange(`${prefix}usage:buckets`, 0, -1);
    let valid = 0;
    for (const minute of minutes) valid += Number((await admin.hget(`${prefix}usage:${minute}`, 'k_hundred|valid')) ?? 0);
    expect(valid).toBe(100);
  });

  it('a limit change broadcast by instance A is enforced by instance B within 1 s', async () => {
    expect((await get(`${b.url}/echo`, 'tg_change')).status).toBe(200);
    expect((await get(`${b.url}/echo`, 'tg_change')).status).toBe(429); // B has the key cached and blocked
    table.set('tg_change', rec('k_change', [{ name: 'tight', algorithm: 'sliding_log', limit: 1000, windowMs: 600_000, scope: 'key' }]));
    const started = performance.now();
    await a.verifier.broadcastInvalidation({ kind: 'key', id: 'k_change' });
    const elapsed = await waitUntil(async () => (await get(`${b.url}/echo`, 'tg_change')).status === 200, 2000, 5);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(elapsed).toBeLessThan(1000);
    const policy = (await get(`${b.url}/echo`, 'tg_change')).headers.get('ratelimit-policy');
    expect(policy).toBe('"tight";q=1000;w=600');
  });

  it('disabling a key (publishInvalidation from the admin connection) turns B\'s 200 into 403 within 1 s', async () => {
    expect((await get(`${b.url}/echo`, 'tg_disable')).status).toBe(200);
    table.set('tg_disable', rec('k_disable', [], { enabled: false }));
    const started = performance.now();
    expect(await publishInvalidation(admin, prefix, { kind: 'key', id: 'k_disable' })).toBe(2);
    await waitUntil(async () => (await get(`${b.url}/echo`, 'tg_disable')).status === 403, 2000, 5);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a plan change reaches every key of the plan on both instances', async () => {
    for (const app of [a, b]) {
      for (const secret of ['tg_plan1', 'tg_plan2']) await get(`${app.url}/echo`, secret);
    }
    expect((await get(`${a.url}/echo`, 'tg_plan1')).status).toBe(429);
    expect((await get(`${b.url}/echo`, 'tg_plan2')).status).toBe(429);
    const raised: GuardLimit[] = [{ name: 'tight', algorithm: 'fixed_window', limit: 100, windowMs: 600_000, scope: 'key' }];
    table.set('tg_plan1', rec('k_plan1', raised, { planId: 'plan_shared' }));
    table.set('tg_plan2', rec('k_plan2', raised, { planId: 'plan_shared' }));
    const started = performance.now();
    await publishInvalidation(admin, prefix, { kind: 'plan', id: 'plan_shared' });
    await waitUntil(async () => {
      const statuses = await Promise.all([get(`${a.url}/echo`, 'tg_plan1'), get(`${b.url}/echo`, 'tg_plan2')].map(async (r) => (await r).status));
      return statuses.every((s) => s === 200);
    }, 2000, 5);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
