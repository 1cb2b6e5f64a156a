import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueRedisPrefix } from '../../../test/support/redis';
import { get, KeyTable, startGuardApp, TEST_REDIS_URL, type GuardApp } from './guard-app.test-util';
import type { GuardLimit, KeyRecord } from './key-record';
import { KeyVerifier } from './key-verifier';
import { parseSfList } from './structured-fields.test-util';

function rec(id: string, limits: GuardLimit[], extra: Partial<KeyRecord> = {}): KeyRecord {
  return { id, ownerId: null, planId: 'plan_test', enabled: true, expiresAt: null, limits, quota: null, failMode: 'closed', ...extra };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('TollgateGuard on a Nest + Fastify app with real Redis', () => {
  const table = new KeyTable();
  const prefix = uniqueRedisPrefix('nest-guard');
  let guard: GuardApp;
  let redis: Redis;

  beforeAll(async () => {
    table.set('tg_headers', rec('k_headers', [
      { name: 'burst', algorithm: 'token_bucket', limit: 5, windowMs: 1000, scope: 'key' },
      { name: 'sustained', algorithm: 'sliding_window', limit: 100, windowMs: 60_000, scope: 'key' },
    ]));
    table.set('tg_fixed', rec('k_fixed', [{ name: 'per2s', algorithm: 'fixed_window', limit: 2, windowMs: 2000, scope: 'key' }]));
    table.set('tg_disabled', rec('k_disabled', [{ name: 'burst', algorithm: 'token_bucket', limit: 5, windowMs: 1000, scope: 'key' }], { enabled: false }));
    table.set('tg_expired', rec('k_expired', [{ name: 'per_min', algorithm: 'fixed_window', limit: 60, windowMs: 60_000, scope: 'key' }], { expiresAt: Date.now() - 1 }));
    table.set('tg_quota', rec('k_quota', [], { quota: { limit: 2, period: 'day', resetDay: 1 } }));
    table.set('tg_costly', rec('k_costly', [{ name: 'burst', algorithm: 'fixed_window', limit: 10, windowMs: 600_000, scope: 'key' }]));
    table.set('tg_select', rec('k_select', [
      { name: 'burst', algorithm: 'token_bucket', limit: 100, windowMs: 1000, scope: 'key' },
      { name: 'sustained', algorithm: 'sliding_log', limit: 1, windowMs: 600_000, scope: 'key' },
    ]));
    table.set('tg_shaped', rec('k_shaped', [{ name: 'smooth', algorithm: 'leaky_bucket', limit: 5, windowMs: 1000, burst: 3, scope: 'key', shaping: true }]));
    table.set('tg_unshaped', rec('k_unshaped', [{ name: 'smooth', algorithm: 'leaky_bucket', limit: 5, windowMs: 1000, burst: 3, scope: 'key' }]));
    table.set('tg_warm', rec('k_warm', [{ name: 'burst', algorithm: 'token_bucket', limit: 1000, windowMs: 1000, scope: 'key' }]));
    guard = await startGuardApp({ redis: TEST_REDIS_URL, prefix, lookup: table.lookup, defaultPolicy: [{ name: 'default', limit: 60, windowMs: 60_000 }] });
    redis = new Redis(TEST_REDIS_URL);
  });

  afterAll(async () => {
    await guard?.close();
    await redis?.quit();
  });

  it('resolves the constructor-injected KeyVerifier and reports a healthy store with live invalidation', async () => {
    expect(guard.verifier).toBeInstanceOf(KeyVerifier);
    await expect.poll(() => guard.verifier.health(), { timeout: 2000 }).toEqual({ store: 'up', breaker: 'closed', invalidation: 'live' });
  });

  /** Every rate-limit header, well formed, naming `name` with r=0;t=0 (state unknown or not applicable). */
  function expectUnknownState(res: Response, name: string, q: number, w: number) {
    expect(parseSfList(res.headers.get('ratelimit-policy'))).toContainEqual({ name, params: { q, w } });
    expect(parseSfList(res.headers.get('ratelimit'))).toEqual([{ name, params: { r: 0, t: 0 } }]);
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(q));
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Math.abs(Number(res.headers.get('x-ratelimit-reset')) - Date.now() / 1000)).toBeLessThan(5);
  }

  it('401 UNAUTHORIZED problem+json without a key, and for an unknown key, with the defaultPolicy in the headers', async () => {
    const missing = await get(`${guard.url}/echo`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expectUnknownState(missing, 'default', 60, 60);
    const body: any = await missing.json();
    expect(body).toMatchObject({ type: 'https://tollgate.dev/problems/unauthorized', title: 'Unauthorized', status: 401, code: 'UNAUTHORIZED' });
    expect(typeof body.detail).toBe('string');
    expect(body.requestId).toMatch(/^req-/);

    for (const via of ['bearer', 'x-api-key'] as const) {
      const unknown = await get(`${guard.url}/echo`, 'tg_nope', via);
      expect(unknown.status).toBe(401);
      expect(unknown.headers.get('www-authenticate')).toBe('Bearer');
      expectUnknownState(unknown, 'default', 60, 60);
      expect(((await unknown.json()) as any).code).toBe('UNAUTHORIZED');
    }
  });

  it('403 KEY_DISABLED and KEY_EXPIRED with every rate-limit header (its policy, r=0;t=0)', async () => {
    const disabled = await get(`${guard.url}/echo`, 'tg_disabled');
    expect(disabled.status).toBe(403);
    expect(disabled.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await disabled.json()) as any).code).toBe('KEY_DISABLED');
    expect(parseSfList(disabled.headers.get('ratelimit-policy'))).toEqual([{ name: 'burst', params: { q: 5, w: 1 } }]);
    expectUnknownState(disabled, 'burst', 5, 1);
    const expired = await get(`${guard.url}/echo`, 'tg_expired');
    expect(expired.status).toBe(403);
    expect((await expired.json()) as any).toMatchObject({ status: 403, code: 'KEY_EXPIRED' });
    expect(parseSfList(expired.headers.get('ratelimit-policy'))).toEqual([{ name: 'per_min', params: { q: 60, w: 60 } }]);
    expectUnknownState(expired, 'per_min', 60, 60);
  });

  it('200 with well-formed RateLimit-Policy, RateLimit and X-RateLimit-* headers, and the verification on the request', async () => {
    const before = Date.now();
    const res = await get(`${guard.url}/echo`, 'tg_headers', 'x-api-key');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ keyId: 'k_headers', degraded: false });
    expect(parseSfList(res.headers.get('ratelimit-policy'))).toEqual([
      { name: 'burst', params: { q: 5, w: 1 } },
      { name: 'sustained', params: { q: 100, w: 60 } },
    ]);
    const [state] = parseSfList(res.headers.get('ratelimit'));
    expect(state.name).toBe('burst');
    expect(state.params.r).toBe(4);
    expect(state.params.t).toBeGreaterThanOrEqual(0);
    expect(state.params.t).toBeLessThanOrEqual(1);
    expect(res.headers.get('x-ratelimit-limit')).toBe('5');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(Math.floor(before / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);

    const second = await get(`${guard.url}/echo`, 'tg_headers');
    expect(second.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('429 RATE_LIMITED problem+json with a Retry-After never earlier than the true wait, and 200 once it has passed', async () => {
    // Start right after a 2 s window boundary so all three requests fall in one window.
    await sleep(2000 - (Date.now() % 2000) + 20);
    expect((await get(`${guard.url}/echo`, 'tg_fixed')).status).toBe(200);
    expect((await get(`${guard.url}/echo`, 'tg_fixed')).status).toBe(200);
    const refused = await get(`${guard.url}/echo`, 'tg_fixed');
    const after = Date.now();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body: any = await refused.json();
    expect(body).toMatchObject({ type: 'https://tollgate.dev/problems/rate-limited', title: 'Too Many Requests', status: 429, code: 'RATE_LIMITED' });
    expect(body.requestId).toMatch(/^req-/);
    const windowEnd = Math.ceil(after / 2000) * 2000;
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter * 1000).toBeGreaterThanOrEqual(windowEnd - after);
    expect(retryAfter).toBeLessThanOrEqual(3); // wait <= 2 s plus at most 1 s of jitter
    expect(parseSfList(refused.headers.get('ratelimit'))).toEqual([{ name: 'per2s', params: { r: 0, t: Math.ceil((windowEnd - after) / 1000) } }]);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');

    await sleep(retryAfter * 1000);
    expect((await get(`${guard.url}/echo`, 'tg_fixed')).status).toBe(200);
  });

  it('429 QUOTA_EXCEEDED once the daily quota (2) is spent, with the quota in the headers', async () => {
    expect((await get(`${guard.url}/echo`, 'tg_quota')).status).toBe(200);
    const second = await get(`${guard.url}/echo`, 'tg_quota');
    expect(second.status).toBe(200);
    expect(parseSfList(second.headers.get('ratelimit-policy'))).toEqual([{ name: 'quota', params: { q: 2, w: 86_400 } }]);
    expect(parseSfList(second.headers.get('ratelimit'))[0]).toMatchObject({ name: 'quota', params: { r: 0 } });
    const refused = await get(`${guard.url}/echo`, 'tg_quota');
    const after = Date.now();
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as any).code).toBe('QUOTA_EXCEEDED');
    const dayEnd = Math.ceil(after / 86_400_000) * 86_400_000;
    expect(Number(refused.headers.get('retry-after')) * 1000).toBeGreaterThanOrEqual(dayEnd - after);
  });

  it('@RateLimitCost(5) charges 5 per request: 2 pass on a limit of 10, the 3rd is refused', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(`${guard.url}/costly`, 'tg_costly')).status);
    expect(statuses).toEqual([200, 200, 429]);
    expect((await get(`${guard.url}/echo`, 'tg_costly')).status).toBe(429); // 10 of 10 spent
  });

  it('cost 5 refused by two limits: the headers name the one that refuses longest (not the one with fewer left), agreeing with Retry-After', async () => {
    table.set('tg_cost5', rec('k_cost5', [
      { name: 'short', algorithm: 'fixed_window', limit: 5, windowMs: 10_000, scope: 'key' },
      { name: 'long', algorithm: 'sliding_log', limit: 8, windowMs: 600_000, scope: 'key' },
    ]));
    for (let i = 0; i < 4; i++) expect((await get(`${guard.url}/echo`, 'tg_cost5')).status).toBe(200);
    // short: at most 3 left (refuses cost 5 for <= 10 s); long: 4 left (refuses it for ~600 s).
    const refused = await get(`${guard.url}/costly`, 'tg_cost5');
    expect(refused.status).toBe(429);
    const [watched] = parseSfList(refused.headers.get('ratelimit'));
    expect(watched).toMatchObject({ name: 'long', params: { r: 4 } });
    expect(watched.params.t).toBeGreaterThan(590);
    expect(refused.headers.get('x-ratelimit-limit')).toBe('8');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('4');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(watched.params.t);
    expect(retryAfter).toBeLessThanOrEqual(watched.params.t + 61); // jitter: at most 10 % of ~600 s
  });

  it('a cost that can never fit: 429 with a Retry-After of the window and a detail saying so', async () => {
    table.set('tg_tiny', rec('k_tiny', [{ name: 'tiny', algorithm: 'fixed_window', limit: 3, windowMs: 60_000, scope: 'key' }]));
    const refused = await get(`${guard.url}/costly`, 'tg_tiny');
    expect(refused.status).toBe(429);
    const body: any = await refused.json();
    expect(body.code).toBe('RATE_LIMITED');
    expect(body.detail).toMatch(/can ever admit/);
    expect(parseSfList(refused.headers.get('ratelimit'))).toEqual([{ name: 'tiny', params: { r: 3, t: 60 } }]);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(60);
    expect(retryAfter).toBeLessThanOrEqual(66); // plus at most 10 % of jitter
  });

  it('@RateLimits("burst") applies only that limit on its route', async () => {
    expect((await get(`${guard.url}/echo`, 'tg_select')).status).toBe(200);
    expect((await get(`${guard.url}/echo`, 'tg_select')).status).toBe(429); // sustained: 1 per 10 min
    const burstOnly = await get(`${guard.url}/burst-only`, 'tg_select');
    expect(burstOnly.status).toBe(200);
    expect(parseSfList(burstOnly.headers.get('ratelimit-policy')).map((p) => p.name)).toEqual(['burst']);
  });

  it('leaky bucket with shaping delays requests instead of refusing them (burst 3, 5/s: +200 ms each, up to 600 ms)', async () => {
    const timed = async (secret: string) => {
      const started = performance.now();
      const res = await get(`${guard.url}/echo`, secret);
      return { status: res.status, ms: performance.now() - started };
    };
    const shaped = await Promise.all(Array.from({ length: 7 }, () => timed('tg_shaped')));
    const passed = shaped.filter((r) => r.status === 200).map((r) => r.ms).sort((a, b) => a - b);
    expect(passed).toHaveLength(6);
    expect(shaped.filter((r) => r.status === 429)).toHaveLength(1);
    expect(passed[3]).toBeGreaterThanOrEqual(190);
    expect(passed[4]).toBeGreaterThanOrEqual(390);
    expect(passed[5]).toBeGreaterThanOrEqual(590);
    expect(passed[5]).toBeLessThan(1500);

    const unshaped = await Promise.all(Array.from({ length: 7 }, () => timed('tg_unshaped')));
    expect(unshaped.filter((r) => r.status === 200)).toHaveLength(3);
    expect(unshaped.filter((r) => r.status === 429)).toHaveLength(4);
  });

  it('without GuardRejectionFilter, Nest\'s default filter still answers with the status, code and headers', async () => {
    table.set('tg_plain', rec('k_plain', [{ name: 'one', algorithm: 'fixed_window', limit: 1, windowMs: 600_000, scope: 'key' }]));
    const ok = await get(`${guard.url}/plain`, 'tg_plain');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-ratelimit-remaining')).toBe('0');
    const refused = await get(`${guard.url}/plain`, 'tg_plain');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit')).toMatch(/^"one";r=0;t=\d+$/);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    expect((await get(`${guard.url}/plain`)).status).toBe(401);
  });

  it('after warm-up, 200 requests make no further key lookups (1 lookup in all)', async () => {
    const before = table.lookups;
    for (let i = 0; i < 4; i++) await Promise.all(Array.from({ length: 50 }, () => get(`${guard.url}/echo`, 'tg_warm')));
    expect(table.lookups - before).toBe(1);
  });

  it('meters every decision in the usage buckets: valid and invalid', async () => {
    await get(`${guard.url}/echo`, 'tg_definitely_unknown');
    await get(`${guard.url}/echo`, 'tg_disabled');
    await new Promise((resolve) => setTimeout(resolve, 50)); // invalid outcomes are metered fire-and-forget
    const minutes = await redis.zrange(`${prefix}usage:buckets`, 0, -1);
    const totals: Record<string, number> = {};
    for (const minute of minutes) {
      for (const [field, count] of Object.entries(await redis.hgetall(`${prefix}usage:${minute}`))) totals[field] = (totals[field] ?? 0) + Number(count);
    }
    expect(totals['k_warm|valid']).toBe(200);
    expect(totals['k_costly|valid']).toBe(2);
    expect(totals['-|invalid']).toBeGreaterThanOrEqual(3);
    expect(totals['k_disabled|invalid']).toBeGreaterThanOrEqual(2);
  });
});
