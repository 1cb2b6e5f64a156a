// The usage API on the real app: rollups plus the open (unflushed) Redis buckets, counted once;
// 400s naming the field; CSV; the SSE stream while decisions flow, and its clean end.
import Redis from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordInvalid, RedisStore, type CheckResult } from '@tollgate/rate-limit';
import { USAGE_METER_PREFIX } from '@tollgate/nest-guard';
import { UsageFlusher } from '../../apps/api/src/usage/usage-flusher';
import { UsageLiveFeed } from '../../apps/api/src/usage/usage-live';
import { UsageStore } from '../../apps/api/src/usage/usage-store';
import { startAdminHarness, type AdminHarness } from '../support/admin';
import { TEST_REDIS_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';

type Counts = { valid: number; rateLimited: number; quotaExceeded: number; invalid: number };
const MINUTE = 60_000;
const OUTCOME: Record<CheckResult['code'], keyof Counts> = { VALID: 'valid', RATE_LIMITED: 'rateLimited', QUOTA_EXCEEDED: 'quotaExceeded' };
const zero = (): Counts => ({ valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 });
const totalOf = (c: Counts) => c.valid + c.rateLimited + c.quotaExceeded + c.invalid;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Minute rollups are kept 2 days in this suite (USAGE_RETENTION_MINUTE_DAYS), to see the setting work. */
const MINUTE_RETENTION_DAYS = 2;

describe('/v1/usage', () => {
  let h: AdminHarness;
  let redis: Redis;
  let engine: RedisStore;
  let pastEngine: RedisStore;
  let usage: UsageStore;
  let keyA: string;
  let keyB: string;
  let keyC: string;
  let keyD: string;
  const expected = new Map<string, Counts>();

  async function decide(keyId: string, nowMs?: number, store = engine): Promise<void> {
    const counts = expected.get(keyId) ?? zero();
    expected.set(keyId, counts);
    if (keyId === '-') {
      await recordInvalid(store, { keyPrefix: USAGE_METER_PREFIX, member: '-' }, nowMs);
      counts.invalid++;
      return;
    }
    const window = Math.floor((nowMs ?? Date.now()) / MINUTE);
    const result = await store.check({
      limits: [{ name: 'burst', identity: `key:${keyId}:${nowMs === undefined ? 'live' : window}`, params: { algorithm: 'token_bucket', limit: 10, windowMs: 60_000 } }],
      meter: { keyPrefix: USAGE_METER_PREFIX, member: keyId },
      nowMs,
    });
    counts[OUTCOME[result.code]]++;
  }

  const sum = (...ids: string[]) => ids.reduce((acc, id) => {
    const c = expected.get(id) ?? zero();
    return { valid: acc.valid + c.valid, rateLimited: acc.rateLimited + c.rateLimited, quotaExceeded: acc.quotaExceeded + c.quotaExceeded, invalid: acc.invalid + c.invalid };
  }, zero());

  beforeAll(async () => {
    h = await startAdminHarness({ USAGE_FLUSH_MS: '100', USAGE_RETENTION_MINUTE_DAYS: String(MINUTE_RETENTION_DAYS) });
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    engine = new RedisStore(redis, { prefix: h.api.env.REDIS_KEY_PREFIX });
    pastEngine = new RedisStore(redis, { prefix: h.api.env.REDIS_KEY_PREFIX, testClock: true });
    usage = new UsageStore({ client: redis, prefix: h.api.env.REDIS_KEY_PREFIX });
    const planId = (await h.call('POST', '/v1/plans', { name: 'usage', limits: [] })).body.id;
    const otherPlanId = (await h.call('POST', '/v1/plans', { name: 'other', limits: [] })).body.id;
    keyA = (await h.call('POST', '/v1/keys', { name: 'alpha', planId, ownerId: 'acme' })).body.id;
    keyB = (await h.call('POST', '/v1/keys', { name: 'beta', planId, ownerId: 'acme' })).body.id;
    keyC = (await h.call('POST', '/v1/keys', { name: 'gamma', planId: otherPlanId, ownerId: 'globex' })).body.id;
    keyD = (await h.call('POST', '/v1/keys', { name: 'delta', planId: otherPlanId, ownerId: 'hooli' })).body.id;

    // Five minutes ago (closed: the API's flusher moves it to Postgres) ...
    const past = Math.floor((Date.now() - 5 * MINUTE) / MINUTE) * MINUTE;
    for (let i = 0; i < 30; i++) await decide(keyA, past + i * 100, pastEngine);
    for (let i = 0; i < 7; i++) await decide(keyC, past + i * 100, pastEngine);
    for (let i = 0; i < 3; i++) await decide('-', past + i, pastEngine);
    await waitFor(() => drained(), { what: 'the flusher to flush the past minute', timeoutMs: 10_000 });
    // ... and now (the open minute: only in Redis until it closes).
    for (let i = 0; i < 15; i++) await decide(keyA);
    for (let i = 0; i < 4; i++) await decide(keyB);
  });

  /** Nothing left in Redis for the API's flusher up to `untilMinute` (default: any minute, open ones included). */
  async function drained(untilMinute = Infinity): Promise<boolean> {
    return (await redis.zcount(usage.indexKey, '-inf', untilMinute === Infinity ? '+inf' : untilMinute)) + (await redis.zcard(usage.pendingKey)) === 0;
  }

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
      ['?color=red', ['query.color']],
      // One bad end of a range given in full is named, not a 500 from comparing it with the other.
      ['?from=garbage&to=2026-12-03T00:00:00Z', ['query.from']],
      ['?from=2026-12-01T00:00:00Z&to=garbage', ['query.to']],
      // A day the month does not have, not rolled over into the next month.
      ['?from=2026-02-30&to=2026-03-05', ['query.from']],
      ['?from=2026-02-01T00:00:00Z&to=2026-02-31T10:00:00+02:00', ['query.to']],
    ];
    for (const [query, paths] of cases) {
      const res = await h.call('GET', `/v1/usage${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toMatch(/application\/problem\+json/);
      expect(res.body.code, query).toBe('VALIDATION_FAILED');
      expect(res.body.errors.map((e: { path: string }) => e.path).sort(), query).toEqual(paths.sort());
    }
    for (const path of ['/v1/usage/top', '/v1/usage/export.csv']) {
      const mixed = await h.call('GET', `${path}?from=garbage&to=2026-12-03T00:00:00Z`);
      expect(mixed.status, path).toBe(400);
      expect(mixed.body.errors.map((e: { path: string }) => e.path), path).toEqual(['query.from']);
    }
    const top = await h.call('GET', '/v1/usage/top?limit=0');
    expect(top.status).toBe(400);
    expect(top.body.errors[0].path).toBe('query.limit');
    const csv = await h.call('GET', '/v1/usage/export.csv?granularity=fortnight');
    expect(csv.status).toBe(400);
    expect(csv.headers.get('content-disposition')).toBeNull();
    expect(csv.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const stream = await h.call('GET', `/v1/usage/stream?keyId=${keyA}&planId=x`);
    expect(stream.status).toBe(400);
    // HEAD of the stream: its headers at once, and no subscription left open behind them.
    const live = h.api.app.get(UsageLiveFeed);
    const subscribers = live.subscriberCount;
    const head = await fetch(`${h.api.url}/v1/usage/stream?keyId=${keyA}`, { method: 'HEAD', headers: { authorization: `Bearer ${h.rootKey}` }, signal: AbortSignal.timeout(3000) });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(live.subscriberCount).toBe(subscribers);
  });

  it('answers the default range at every granularity: the 24 h before now in minutes touch 1441 buckets', async () => {
    for (const granularity of ['minute', 'hour', 'day']) {
      const res = await h.call('GET', `/v1/usage?keyId=${keyA}&granularity=${granularity}`);
      expect(res.status, granularity).toBe(200);
      expect(res.body.series.length, granularity).toBeGreaterThanOrEqual({ minute: 1440, hour: 24, day: 1 }[granularity]!);
      expect(res.body.series.length, granularity).toBeLessThanOrEqual({ minute: 1441, hour: 25, day: 2 }[granularity]!);
    }
    // Exactly the longest range, unaligned: answered; a millisecond longer: refused.
    const to = Date.now();
    const longest = await h.call('GET', `/v1/usage?granularity=hour&from=${new Date(to - 60 * 86_400_000).toISOString()}&to=${new Date(to).toISOString()}`);
    expect(longest.status).toBe(200);
    const longer = await h.call('GET', `/v1/usage?granularity=hour&from=${new Date(to - 60 * 86_400_000 - 1).toISOString()}&to=${new Date(to).toISOString()}`);
    expect(longer.status).toBe(400);
    expect(longer.body.errors[0].path).toBe('query.granularity');
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

  it('stream: while decisions flow, an event about every second whose deltas add up to the decisions sent; the poller stops when the client leaves', async () => {
    const live = h.api.app.get(UsageLiveFeed);
    const abort = new AbortController();
    const res = await fetch(`${h.api.url}/v1/usage/stream?keyId=${keyB}`, { headers: { authorization: `Bearer ${h.rootKey}` }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const events: { at: number; data: Counts & { ts: string } }[] = [];
    const reading = (async () => {
      let buffer = '';
      for (;;) {
        const chunk = await reader.read();
        if (chunk.done) return;
        buffer += decoder.decode(chunk.value, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const message = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = message.split('\n').find((line) => line.startsWith('data: '));
          if (data) events.push({ at: Date.now(), data: JSON.parse(data.slice(6)) });
        }
      }
    })().catch(() => undefined); // aborted at the end

    // ~4 s of decisions for keyB, one every ~50 ms, each counted in `expected`.
    const before = totalOf(sum(keyB));
    const began = Date.now();
    while (Date.now() - began < 4000) {
      await decide(keyB);
      await sleep(50);
    }
    const ended = Date.now();
    const sent = totalOf(sum(keyB)) - before;
    expect(sent).toBeGreaterThan(30);

    // Every decision sent shows up in the deltas, once: their sum reaches `sent` (within ~2 ticks of the last one) and stays there.
    const streamed = () => events.reduce((acc, event) => acc + totalOf(event.data), 0);
    await waitFor(() => streamed() >= sent, { what: `the streamed deltas to add up to ${sent} (at ${streamed()})`, timeoutMs: 3000 });
    await sleep(1200);
    expect(streamed()).toBe(sent);
    for (const event of events) {
      expect(event.data.invalid).toBe(0);
      expect(Number.isNaN(Date.parse(event.data.ts))).toBe(false);
    }

    // About one event a second while the decisions flowed: the first within ~1.5 s, then no gap much over a second.
    const during = events.filter((event) => event.at <= ended + 200).map((event) => event.at);
    expect(during[0] - began).toBeLessThan(1600);
    expect(during.length).toBeGreaterThanOrEqual(3);
    const gaps = during.slice(1).map((at, i) => at - during[i]);
    expect(Math.max(...gaps, ended - during[during.length - 1])).toBeLessThan(2000);

    expect(live.subscriberCount).toBe(1);
    abort.abort();
    await reader.cancel().catch(() => undefined);
    await reading;
    await waitFor(() => live.subscriberCount === 0 && !live.active, { what: 'the stream to be cleaned up after the client left', timeoutMs: 3000, intervalMs: 20 });
  });

  it(`retention comes from the env: the API's flusher prunes minute rows past USAGE_RETENTION_MINUTE_DAYS (${MINUTE_RETENTION_DAYS}), and /v1/usage then answers from hour rows`, async () => {
    const now = Date.now();
    const recent = Math.floor((now - 1.5 * 86_400_000) / MINUTE) * MINUTE;
    const old = Math.floor((now - 3 * 86_400_000) / MINUTE) * MINUTE;
    await decide(keyD, recent + 1000, pastEngine);
    await decide(keyD, old + 1000, pastEngine);
    await waitFor(() => drained(recent), { what: 'the flusher to flush both minutes', timeoutMs: 10_000 });
    const around = (ms: number, granularity?: string) =>
      h.call('GET', `/v1/usage?keyId=${keyD}&from=${new Date(ms - 10 * MINUTE).toISOString()}&to=${new Date(ms + 50 * MINUTE).toISOString()}${granularity ? `&granularity=${granularity}` : ''}`);
    const pruned = await h.api.app.get(UsageFlusher).prune();
    // The 3-day-old minute row is gone, the 1.5-day-old one and both hour rows stay.
    expect(pruned.minute).toBeGreaterThanOrEqual(1);
    expect((await around(recent, 'minute')).body.totals.valid).toBe(1);
    // Minutes past retention are not answered as zeros (no traffic) but refused, naming the granularity.
    const refused = await around(old, 'minute');
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'query.granularity', message: expect.stringContaining(`minute rows are kept ${MINUTE_RETENTION_DAYS} days`) }]);
    expect((await around(old, 'hour')).body.totals.valid).toBe(1);
    // Without a granularity, a one-hour range 3 days back is answered from hour rows (minute rows past retention).
    const auto = await around(old);
    expect(auto.body.granularity).toBe('hour');
    expect(auto.body.totals.valid).toBe(1);
    const within = await around(recent);
    expect(within.body.granularity).toBe('minute');
  });
});
