// The usage API on the real app: rollups plus the open (unflushed) Redis buckets, counted once;
// 400s naming the field; CSV; the SSE stream while decisions flow, and its clean end.
import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordInvalid, RedisStore, type CheckResult } from '@tollgate/rate-limit';
import { UsageFlusher } from '../../apps/api/src/usage/usage-flusher';
import { UsageLiveFeed } from '../../apps/api/src/usage/usage-live';
import { USAGE_KEY_PREFIX, UsageStore } from '../../apps/api/src/usage/usage-store';
import { startAdminHarness, type AdminHarness } from '../support/admin';
import { TEST_REDIS_URL } from '../support/test-env';

type Counts = { valid: number; rateLimited: number; quotaExceeded: number; invalid: number };
const MINUTE = 60_000;
const OUTCOME: Record<CheckResult['code'], keyof Counts> = { VALID: 'valid', RATE_LIMITED: 'rateLimited', QUOTA_EXCEEDED: 'quotaExceeded' };
const zero = (): Counts => ({ valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 });

describe('/v1/usage', () => {
  let h: AdminHarness;
  let redis: Redis;
  let engine: RedisStore;
  let pastEngine: RedisStore;
  let usage: UsageStore;
  let keyA: string;
  let keyB: string;
  let keyC: string;
  const expected = new Map<string, Counts>();

  async function decide(keyId: string, nowMs?: number, store = engine): Promise<void> {
    const counts = expected.get(keyId) ?? zero();
    expected.set(keyId, counts);
    if (keyId === '-') {
      await recordInvalid(store, { keyPrefix: USAGE_KEY_PREFIX, member: '-' }, nowMs);
      counts.invalid++;
      return;
    }
    const window = Math.floor((nowMs ?? Date.now()) / MINUTE);
    const result = await store.check({
      limits: [{ name: 'burst', identity: `key:${keyId}:${nowMs === undefined ? 'live' : window}`, params: { algorithm: 'token_bucket', limit: 10, windowMs: 60_000 } }],
      meter: { keyPrefix: USAGE_KEY_PREFIX, member: keyId },
      nowMs,
    });
    counts[OUTCOME[result.code]]++;
  }

  const sum = (...ids: string[]) => ids.reduce((acc, id) => {
    const c = expected.get(id) ?? zero();
    return { valid: acc.valid + c.valid, rateLimited: acc.rateLimited + c.rateLimited, quotaExceeded: acc.quotaExceeded + c.quotaExceeded, invalid: acc.invalid + c.invalid };
  }, zero());

  beforeAll(async () => {
    h = await startAdminHarness({ USAGE_FLUSH_MS: '100' });
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    engine = new RedisStore(redis, { prefix: h.api.env.REDIS_KEY_PREFIX });
    pastEngine = new RedisStore(redis, { prefix: h.api.env.REDIS_KEY_PREFIX, testClock: true });
    usage = new UsageStore({ client: redis, prefix: h.api.env.REDIS_KEY_PREFIX });
    const planId = (await h.call('POST', '/v1/plans', { name: 'usage', limits: [] })).body.id;
    const otherPlanId = (await h.call('POST', '/v1/plans', { name: 'other', limits: [] })).body.id;
    keyA = (await h.call('POST', '/v1/keys', { name: 'alpha', planId, ownerId: 'acme' })).body.id;
    keyB = (await h.call('POST', '/v1/keys', { name: 'beta', planId, ownerId: 'acme' })).body.id;
    keyC = (await h.call('POST', '/v1/keys', { name: 'gamma', planId: otherPlanId, ownerId: 'globex' })).body.id;

    // Five minutes ago (closed: the API's flusher moves it to Postgres) ...
    const past = Math.floor((Date.now() - 5 * MINUTE) / MINUTE) * MINUTE;
    for (let i = 0; i < 30; i++) await decide(keyA, past + i * 100, pastEngine);
    for (let i = 0; i < 7; i++) await decide(keyC, past + i * 100, pastEngine);
    for (let i = 0; i < 3; i++) await decide('-', past + i, pastEngine);
    const deadline = Date.now() + 10_000;
    while ((await redis.zcard(usage.indexKey)) + (await redis.zcard(usage.pendingKey)) > 0) {
      if (Date.now() > deadline) throw new Error('the flusher did not flush the past minute');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // ... and now (the open minute: only in Redis until it closes).
    for (let i = 0; i < 15; i++) await decide(keyA);
    for (let i = 0; i < 4; i++) await decide(keyB);
  });

  afterAll(async () => {
    redis?.disconnect();
    await h?.close();
  });

  it('200: zero-filled series whose totals are the flushed rollups plus the live minute, each counted once', async () => {
    const from = new Date(Date.now() - 10 * MINUTE).toISOString();
    const res = await h.call('GET', `/v1/usage?keyId=${keyA}&granularity=minute&from=${from}`);
    expect(res.status).toBe(200);
    expect(res.body.granularity).toBe('minute');
    expect(res.body.series.length).toBeGreaterThanOrEqual(10);
    expect(res.body.series.length).toBeLessThanOrEqual(12);
    for (const point of res.body.series) expect(Object.keys(point).sort()).toEqual(['invalid', 'quotaExceeded', 'rateLimited', 'ts', 'valid']);
    expect(res.body.series.filter((p: Counts) => p.valid + p.rateLimited > 0)).toHaveLength(2);
    expect(res.body.totals).toEqual(sum(keyA));
    expect(res.body.totals).toEqual({ valid: 20, rateLimited: 25, quotaExceeded: 0, invalid: 0 });

    // The flushed minute is in Postgres and (for a grace period) still in Redis as a committed snapshot: counted once.
    expect(await redis.zcard(usage.snapsKey)).toBeGreaterThan(0);
    const everything = await h.call('GET', '/v1/usage');
    expect(everything.status).toBe(200);
    expect(everything.body.granularity).toBe('hour');
    expect(everything.body.series.length).toBeGreaterThanOrEqual(24);
    expect(everything.body.totals).toEqual(sum(keyA, keyB, keyC, '-'));

    const owner = await h.call('GET', '/v1/usage?ownerId=acme&granularity=hour');
    expect(owner.body.totals).toEqual(sum(keyA, keyB));
    const plan = await h.call('GET', `/v1/usage?planId=${(await h.call('GET', `/v1/keys/${keyC}`)).body.planId}`);
    expect(plan.body.totals).toEqual(sum(keyC));
    const day = await h.call('GET', `/v1/usage?keyId=${keyB}&granularity=day&from=${new Date(Date.now() - 3 * 86_400_000).toISOString()}`);
    expect(day.body.series).toHaveLength(4);
    expect(day.body.totals).toEqual(sum(keyB));
  });

  it('400 problem+json naming the field: bad dates, reversed range, bad granularity, two filters, too many points', async () => {
    const cases: [string, string[]][] = [
      ['?from=yesterday', ['query.from']],
      ['?to=2026-13-45T00:00:00Z', ['query.to']],
      ['?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', ['query.from']],
      ['?from=2026-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', ['query.from']],
      ['?granularity=week', ['query.granularity']],
      [`?keyId=${keyA}&ownerId=acme`, ['query.keyId', 'query.ownerId']],
      ['?granularity=minute&from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z', ['query.granularity']],
      ['?granularity=hour&from=2025-01-01T00:00:00Z&to=2025-06-01T00:00:00Z', ['query.granularity']],
      ['?from=2020-01-01&to=2026-01-01', ['query.from']],
      ['?color=red', ['query.(root)']],
    ];
    for (const [query, paths] of cases) {
      const res = await h.call('GET', `/v1/usage${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toMatch(/application\/problem\+json/);
      expect(res.body.code, query).toBe('VALIDATION_FAILED');
      expect(res.body.errors.map((e: { path: string }) => e.path).sort(), query).toEqual(paths.sort());
    }
    const top = await h.call('GET', '/v1/usage/top?limit=0');
    expect(top.status).toBe(400);
    expect(top.body.errors[0].path).toBe('query.limit');
    const csv = await h.call('GET', '/v1/usage/export.csv?granularity=fortnight');
    expect(csv.status).toBe(400);
    const stream = await h.call('GET', `/v1/usage/stream?keyId=${keyA}&planId=x`);
    expect(stream.status).toBe(400);
  });

  it('top: keys by total, with names, the live minute included', async () => {
    const res = await h.call('GET', '/v1/usage/top?limit=2');
    expect(res.status).toBe(200);
    expect(res.body.items).toHaveLength(2);
    expect(res.body.items[0]).toMatchObject({ keyId: keyA, name: 'alpha', ...sum(keyA) });
    expect(res.body.items[1]).toMatchObject({ keyId: keyC, name: 'gamma', valid: sum(keyC).valid, rateLimited: 0 });
    expect(res.body.items.every((item: { keyId: string }) => item.keyId !== '-')).toBe(true);
  });

  it('export.csv: text/csv with the header row and one line per bucket', async () => {
    const from = new Date(Date.now() - 10 * MINUTE).toISOString();
    const json = await h.call('GET', `/v1/usage?granularity=minute&from=${from}`);
    const res = await fetch(`${h.api.url}/v1/usage/export.csv?granularity=minute&from=${encodeURIComponent(from)}`, { headers: { authorization: `Bearer ${h.rootKey}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (await res.text()).trimEnd().split('\n');
    expect(lines[0]).toBe('ts,valid,rateLimited,quotaExceeded,invalid');
    expect(lines).toHaveLength(json.body.series.length + 1);
    const parsed = lines.slice(1).map((line) => line.split(','));
    expect(parsed.reduce((acc, cells) => acc + Number(cells[1]), 0)).toBe(json.body.totals.valid);
    expect(parsed[0][0]).toBe(json.body.series[0].ts);
  });

  it('stream: an event within ~1.5 s while decisions flow; the poller stops when the client leaves', async () => {
    const live = h.api.app.get(UsageLiveFeed);
    const abort = new AbortController();
    const res = await fetch(`${h.api.url}/v1/usage/stream?keyId=${keyB}`, { headers: { authorization: `Bearer ${h.rootKey}` }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const traffic = setInterval(() => void decide(keyB).catch(() => undefined), 50);
    const began = Date.now();
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const events: Counts[] = [];
    try {
      while (events.length < 2) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = message.split('\n').find((line) => line.startsWith('data: '));
          if (data) {
            if (events.length === 0) expect(Date.now() - began).toBeLessThan(1600);
            events.push(JSON.parse(data.slice(6)));
          }
        }
      }
    } finally {
      clearInterval(traffic);
    }
    expect(events[0].valid + events[0].rateLimited).toBeGreaterThan(0);
    expect(events[0].invalid).toBe(0);
    expect(Number.isNaN(Date.parse((events[0] as unknown as { ts: string }).ts))).toBe(false);
    expect(live.subscriberCount).toBe(1);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    const deadline = Date.now() + 3000;
    while (live.subscriberCount > 0 || live.active) {
      if (Date.now() > deadline) throw new Error('the stream was not cleaned up after the client left');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });

  it('the API flusher is the module one, started on init', () => {
    expect(h.api.app.get(UsageFlusher)).toBeInstanceOf(UsageFlusher);
  });
});
