import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TcpProxy } from '../../libs/nest-guard/src/tcp-proxy.test-util';
import { startAdminHarness, type AdminHarness } from '../support/admin';
import { TEST_REDIS_URL } from '../support/test-env';
import { http } from '../support/http';

describe('POST /v1/keys/verify', () => {
  let h: AdminHarness;
  let planId: string;

  beforeAll(async () => {
    h = await startAdminHarness();
    const plan = await h.call('POST', '/v1/plans', {
      name: 'metered',
      limits: [
        { name: 'burst', algorithm: 'token_bucket', limit: 1, windowMs: 60_000, burst: 5 },
        { name: 'sustained', algorithm: 'fixed_window', limit: 8, windowMs: 3_600_000 },
      ],
      quota: { limit: 12, period: 'day' },
    });
    planId = plan.body.id;
  });
  afterAll(async () => h?.close());

  it('a shaping leaky bucket answers VALID with the delay to wait (delayMs), and rejects past a full bucket', async () => {
    const plan = await h.call('POST', '/v1/plans', { name: 'shaped', limits: [{ name: 'smooth', algorithm: 'leaky_bucket', limit: 2, windowMs: 2000, shaping: true }] });
    const { body: key } = await h.call('POST', '/v1/keys', { name: 's', planId: plan.body.id });
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push((await h.call('POST', '/v1/keys/verify', { key: key.key })).body);
    // A bucket of 2 drained at 1 per second: two fit now, the next two only after 1 s and 2 s.
    expect(answers.map((a) => a.code)).toEqual(['VALID', 'VALID', 'VALID', 'VALID', 'RATE_LIMITED']);
    expect(answers[0].delayMs).toBeUndefined();
    expect(answers[1].delayMs).toBeUndefined();
    expect(answers[2].delayMs).toBeGreaterThan(800);
    expect(answers[2].delayMs).toBeLessThanOrEqual(1000);
    expect(answers[3].delayMs).toBeGreaterThan(1800);
    expect(answers[3].delayMs).toBeLessThanOrEqual(2000);
  });

  it('applies every limit and the quota, with remaining and reset per limit (200)', async () => {
    const { body: key } = await h.call('POST', '/v1/keys', { name: 'v', planId, ownerId: 'acme' });
    const first = await h.call('POST', '/v1/keys/verify', { key: key.key });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ valid: true, code: 'VALID', keyId: key.id, ownerId: 'acme', planId, quota: { limit: 12, remaining: 11 } });
    expect(first.body.limits).toEqual([
      { name: 'burst', limit: 1, remaining: 4, resetMs: expect.any(Number) },
      { name: 'sustained', limit: 8, remaining: 7, resetMs: expect.any(Number) },
    ]);
    expect(Date.parse(first.body.quota.resetAt)).toBeGreaterThan(Date.now());

    const codes: string[] = [];
    for (let i = 0; i < 5; i += 1) codes.push((await h.call('POST', '/v1/keys/verify', { key: key.key })).body.code);
    expect(codes).toEqual(['VALID', 'VALID', 'VALID', 'VALID', 'RATE_LIMITED']);
    const limited = await h.call('POST', '/v1/keys/verify', { key: key.key });
    expect(limited.body.valid).toBe(false);
    expect(limited.body.retryAfterMs).toBeGreaterThan(0);
    expect(limited.body.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('a cost larger than what is left is rejected without charging anything', async () => {
    const { body: key } = await h.call('POST', '/v1/keys', { name: 'cost', planId });
    const big = await h.call('POST', '/v1/keys/verify', { key: key.key, cost: 6 });
    expect(big.body.code).toBe('RATE_LIMITED');
    const after = await h.call('POST', '/v1/keys/verify', { key: key.key, cost: 5 });
    expect(after.body).toMatchObject({ valid: true, limits: [{ name: 'burst', remaining: 0 }, { name: 'sustained', remaining: 3 }] });
  });

  it('QUOTA_EXCEEDED once the period quota is spent', async () => {
    const { body: key } = await h.call('POST', '/v1/keys', { name: 'quota', planId, limits: [{ name: 'burst', algorithm: 'token_bucket', limit: 100, windowMs: 1000, burst: 100 }, { name: 'sustained', algorithm: 'fixed_window', limit: 100, windowMs: 3_600_000 }] });
    const codes: string[] = [];
    for (let i = 0; i < 13; i += 1) codes.push((await h.call('POST', '/v1/keys/verify', { key: key.key })).body.code);
    expect(codes.slice(0, 12).every((code) => code === 'VALID')).toBe(true);
    expect(codes[12]).toBe('QUOTA_EXCEEDED');
  });

  it('answers 200 valid:false for unknown, disabled and expired keys', async () => {
    expect((await h.call('POST', '/v1/keys/verify', { key: 'tg_doesNotExist' })).body).toMatchObject({ valid: false, code: 'NOT_FOUND', limits: [] });
    const { body: key } = await h.call('POST', '/v1/keys', { name: 'off', planId });
    await h.call('PATCH', `/v1/keys/${key.id}`, { enabled: false });
    expect((await h.call('POST', '/v1/keys/verify', { key: key.key })).body).toMatchObject({ valid: false, code: 'DISABLED', keyId: key.id });
    await h.call('PATCH', `/v1/keys/${key.id}`, { enabled: true, expiresAt: new Date(Date.now() + 800).toISOString() });
    expect((await h.call('POST', '/v1/keys/verify', { key: key.key })).body.code).toBe('VALID');
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect((await h.call('POST', '/v1/keys/verify', { key: key.key })).body).toMatchObject({ valid: false, code: 'EXPIRED' });
  });

  it('answers 400 naming bad fields, 401 without a credential', async () => {
    const bad = await h.call('POST', '/v1/keys/verify', { key: '', cost: 1001, extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(expect.arrayContaining(['key', 'cost', 'extra']));
    expect((await h.call('POST', '/v1/keys/verify', { key: 'tg_x', cost: 0 })).status).toBe(400);
    expect((await h.call('POST', '/v1/keys/verify', { key: 'tg_x', cost: 1.5 })).status).toBe(400);
    expect((await http(`${h.api.url}/v1/keys/verify`, { method: 'POST', json: { key: 'tg_x' } })).status).toBe(401);
  });

  it('a limit patched through the API is enforced on the next request', async () => {
    const { body: key } = await h.call('POST', '/v1/keys', { name: 'live', planId });
    expect((await h.call('POST', '/v1/keys/verify', { key: key.key })).body.limits[0]).toMatchObject({ name: 'burst', limit: 1, remaining: 4 });
    await h.call('PATCH', `/v1/keys/${key.id}`, { limits: [{ name: 'burst', algorithm: 'token_bucket', limit: 1, windowMs: 60_000, burst: 1 }] });
    const deadline = Date.now() + 1000;
    let code = '';
    while (Date.now() < deadline && code !== 'RATE_LIMITED') {
      code = (await h.call('POST', '/v1/keys/verify', { key: key.key })).body.code;
    }
    expect(code).toBe('RATE_LIMITED');
  });
});

describe('POST /v1/keys/verify when Redis is cut off', () => {
  it('answers 503 STORE_UNAVAILABLE for a closed plan, VALID degraded for an open one, and recovers', async () => {
    const proxy = await TcpProxy.start(TEST_REDIS_URL);
    const h = await startAdminHarness({ REDIS_URL: proxy.url });
    try {
      const limits = [{ name: 'burst', algorithm: 'token_bucket', limit: 10, windowMs: 1000 }];
      const closed = await h.call('POST', '/v1/plans', { name: 'closed', limits });
      const open = await h.call('POST', '/v1/plans', { name: 'open', limits, failMode: 'open' });
      const closedKey = (await h.call('POST', '/v1/keys', { name: 'c', planId: closed.body.id })).body.key;
      const openKey = (await h.call('POST', '/v1/keys', { name: 'o', planId: open.body.id })).body.key;
      expect((await h.call('POST', '/v1/keys/verify', { key: closedKey })).body.code).toBe('VALID');
      expect((await h.call('POST', '/v1/keys/verify', { key: openKey })).body.code).toBe('VALID');

      await proxy.cut();
      const refused = await h.call('POST', '/v1/keys/verify', { key: closedKey });
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      const allowed = await h.call('POST', '/v1/keys/verify', { key: openKey });
      expect(allowed.status).toBe(200);
      expect(allowed.body).toMatchObject({ valid: true, code: 'VALID' });

      await proxy.restore();
      let status = 0;
      for (let i = 0; i < 50 && status !== 200; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await h.call('POST', '/v1/keys/verify', { key: closedKey })).status;
      }
      expect(status).toBe(200);
    } finally {
      await proxy.cut();
      await h.close();
    }
  });
});

describe('GET /v1/demo/echo behind the guard', () => {
  let h: AdminHarness;
  let secret: string;
  let keyId: string;

  beforeAll(async () => {
    h = await startAdminHarness();
    const plan = await h.call('POST', '/v1/plans', {
      name: 'guarded',
      limits: [
        { name: 'burst', algorithm: 'token_bucket', limit: 1, windowMs: 30_000, burst: 3 },
        { name: 'sustained', algorithm: 'sliding_window', limit: 100, windowMs: 60_000 },
      ],
    });
    const key = await h.call('POST', '/v1/keys', { name: 'g', planId: plan.body.id });
    secret = key.body.key;
    keyId = key.body.id;
  });
  afterAll(async () => h?.close());

  it('200 with RateLimit, RateLimit-Policy and X-RateLimit-* headers (Bearer or X-API-Key)', async () => {
    const res = await http(`${h.api.url}/v1/demo/echo`, { token: secret });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ok: true, keyId });
    expect(res.headers.get('ratelimit-policy')).toBe('"burst";q=1;w=30, "sustained";q=100;w=60');
    expect(res.headers.get('ratelimit')).toMatch(/^"burst";r=2;t=\d+$/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('1');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    const viaHeader = await http(`${h.api.url}/v1/demo/echo`, { headers: { 'x-api-key': secret } });
    expect(viaHeader.status).toBe(200);
  });

  it('429 problem+json with a Retry-After never earlier than the true wait', async () => {
    await http(`${h.api.url}/v1/demo/echo`, { token: secret });
    const res = await http(`${h.api.url}/v1/demo/echo`, { token: secret });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
    expect(res.body).toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    const retryAfter = Number(res.headers.get('retry-after'));
    // one token refills every 30 s: the true wait is up to 30 s, jitter adds up to max(1 s, 10 %).
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(34);
    expect(res.headers.get('ratelimit')).toMatch(/^"burst";r=0;t=\d+$/);
    expect(retryAfter).toBeGreaterThanOrEqual(Number(/t=(\d+)/.exec(res.headers.get('ratelimit')!)![1]) - 1);
  });

  it('401 without a key or with an unknown key; 403 for a disabled key', async () => {
    const none = await http(`${h.api.url}/v1/demo/echo`);
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHORIZED');
    // Every guarded answer carries the headers; without a key the quota is zero.
    expect(none.headers.get('ratelimit-policy')).toBe('"unauthenticated";q=0;w=1');
    expect(none.headers.get('ratelimit')).toBe('"unauthenticated";r=0;t=0');
    expect(none.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await http(`${h.api.url}/v1/demo/echo`, { token: 'tg_unknownKey' })).status).toBe(401);
    await h.call('PATCH', `/v1/keys/${keyId}`, { enabled: false });
    const disabled = await http(`${h.api.url}/v1/demo/echo`, { token: secret });
    expect(disabled.status).toBe(403);
    expect(disabled.body.code).toBe('KEY_DISABLED');
    expect(disabled.headers.get('ratelimit-policy')).toContain('"burst";q=1;w=30');
    expect(disabled.headers.get('x-ratelimit-limit')).not.toBeNull();
  });

  it('a change answered by an instance is enforced by that instance at once, not only after its pub/sub echo', async () => {
    // Each request right after the PATCH's answer, on the same instance: the instance drops its
    // cached key when it commits the change, before its own broadcast comes back over Redis.
    for (let round = 0; round < 15; round++) {
      await h.call('PATCH', `/v1/keys/${keyId}`, { enabled: false });
      expect((await http(`${h.api.url}/v1/demo/echo`, { token: secret })).status, `round ${round}, disabled`).toBe(403);
      await h.call('PATCH', `/v1/keys/${keyId}`, { enabled: true });
      expect((await http(`${h.api.url}/v1/demo/echo`, { token: secret })).status, `round ${round}, enabled`).not.toBe(403);
    }
  });
});
