import { MemoryStore, type CheckRequest, type CheckResult, type RateLimitStore } from '@tollgate/rate-limit';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { KeyRecord } from './key-record';
import { KeyVerifier, sha256Hex } from './key-verifier';
import type { GuardRedisClient } from './redis-client';
import { verificationHeaders } from './verification-headers';

/** The in-process engine store, counting the checks that reach it. */
class CountingStore implements RateLimitStore {
  readonly requests: CheckRequest[] = [];
  constructor(private readonly inner: MemoryStore) {}
  check(req: CheckRequest): Promise<CheckResult> {
    this.requests.push(req);
    return this.inner.check(req);
  }
}

function key(overrides: Partial<KeyRecord> = {}): KeyRecord {
  return {
    id: 'k1',
    ownerId: 'o1',
    planId: 'p1',
    enabled: true,
    expiresAt: null,
    limits: [
      { name: 'burst', algorithm: 'fixed_window', limit: 3, windowMs: 60_000, scope: 'key' },
      { name: 'sustained', algorithm: 'sliding_log', limit: 100, windowMs: 3_600_000, scope: 'owner' },
    ],
    quota: null,
    failMode: 'closed',
    ...overrides,
  };
}

function setup(records: Record<string, KeyRecord>, now = { t: 1_700_000_000_000 }) {
  const bySecretHash = new Map(Object.entries(records).map(([secret, rec]) => [sha256Hex(secret), rec]));
  const lookups: string[] = [];
  const store = new CountingStore(new MemoryStore({ clock: () => now.t }));
  const verifier = new KeyVerifier({
    store,
    lookup: async (hash) => {
      lookups.push(hash);
      return bySecretHash.get(hash) ?? null;
    },
    clock: () => now.t,
  });
  return { verifier, store, lookups, now, bySecretHash };
}

describe('sha256Hex', () => {
  it('is the SHA-256 the API stores for a key (FIPS 180-2 test vector, and non-ASCII as UTF-8)', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex('é')).toBe(createHash('sha256').update('é', 'utf8').digest('hex'));
  });
});

describe('KeyVerifier (in-process store)', () => {
  it('answers NOT_FOUND, DISABLED and EXPIRED locally, without a store call', async () => {
    const { verifier, store, now } = setup({
      off: key({ id: 'k_off', enabled: false }),
      old: key({ id: 'k_old', expiresAt: 1_700_000_000_000 }),
      later: key({ id: 'k_later', expiresAt: 1_700_000_000_001 }),
    });
    expect(await verifier.verify('nope')).toMatchObject({ valid: false, code: 'NOT_FOUND', limits: [] });
    expect(await verifier.verify('off')).toMatchObject({ valid: false, code: 'DISABLED', keyId: 'k_off' });
    expect(await verifier.verify('old')).toMatchObject({ valid: false, code: 'EXPIRED', keyId: 'k_old' });
    expect(store.requests).toHaveLength(0);
    expect(await verifier.verify('later')).toMatchObject({ valid: true, code: 'VALID' });
    now.t += 1;
    expect(await verifier.verify('later')).toMatchObject({ valid: false, code: 'EXPIRED' });
  });

  it('sends all limits, the quota and the meter in ONE check, with identities by scope', async () => {
    const { verifier, store } = setup({
      s: key({ limits: [...key().limits, { name: 'plan_wide', algorithm: 'token_bucket', limit: 1000, windowMs: 1000, scope: 'global' }], quota: { limit: 500, period: 'month', resetDay: 1 } }),
      orphan: key({ id: 'k2', ownerId: null }),
    });
    const result = await verifier.verify('s', { cost: 2 });
    expect(store.requests).toHaveLength(1);
    const req = store.requests[0];
    expect(req.cost).toBe(2);
    expect(req.limits.map((l) => [l.name, l.identity])).toEqual([
      ['burst', 'key:k1'],
      ['sustained', 'owner:o1'],
      ['plan_wide', 'plan:p1'],
    ]);
    expect(req.quota).toEqual({ identity: 'key:k1', limit: 500, period: 'month', resetDay: 1 });
    expect(req.meter).toEqual({ keyPrefix: 'usage:', member: 'k1' });
    expect(result).toMatchObject({ valid: true, code: 'VALID', keyId: 'k1', ownerId: 'o1', planId: 'p1', quota: { limit: 500, remaining: 498 } });
    expect(result.limits.map((l) => [l.name, l.limit, l.windowMs, l.remaining])).toEqual([
      ['burst', 3, 60_000, 1],
      ['sustained', 100, 3_600_000, 98],
      ['plan_wide', 1000, 1000, 998],
    ]);
    expect(result.policy?.map((p) => p.name)).toEqual(['burst', 'sustained', 'plan_wide', 'quota']);
    await verifier.verify('orphan');
    expect(store.requests[1].limits.map((l) => l.identity)).toEqual(['key:k2', 'key:k2']);
  });

  it('percent-encodes braces (and %) in identities: they become Redis hash tags, which a brace would cut short', async () => {
    const { verifier, store } = setup({
      s: key({ id: 'k{1}', ownerId: 'acme {eu}', planId: 'p%7B', quota: { limit: 5, period: 'day', resetDay: 1 }, limits: [...key().limits, { name: 'plan_wide', algorithm: 'token_bucket', limit: 10, windowMs: 1000, scope: 'global' }] }),
      plain: key({ id: 'k2', ownerId: 'acme', planId: 'p1' }),
    });
    expect((await verifier.verify('s')).valid).toBe(true);
    expect(store.requests[0].limits.map((l) => l.identity)).toEqual(['key:k%7B1%7D', 'owner:acme %7Beu%7D', 'plan:p%257B']);
    expect(store.requests[0].quota?.identity).toBe('key:k%7B1%7D');
    await verifier.verify('plain');
    expect(store.requests[1].limits.map((l) => l.identity)).toEqual(['key:k2', 'owner:acme']);
  });

  it('a limit this request left with no room says when it has room for one more (t), not when it is full again', async () => {
    const now = { t: 1_700_000_000_000 };
    const { verifier } = setup(
      {
        s: key({ limits: [{ name: 'tb', algorithm: 'token_bucket', limit: 10, windowMs: 60_000, burst: 3, scope: 'key' }] }),
        w: key({ id: 'k2', limits: [{ name: 'fw', algorithm: 'fixed_window', limit: 2, windowMs: 60_000, scope: 'key' }] }),
      },
      now,
    );
    const ts: string[] = [];
    for (let i = 0; i < 3; i++) ts.push(verificationHeaders(await verifier.verify('s')).ratelimit);
    // Room now: t is the time to a full bucket (6 s per token). Out of room: one token in 6 s, not 18.
    expect(ts).toEqual(['"tb";r=2;t=6', '"tb";r=1;t=12', '"tb";r=0;t=6']);
    const last = await verifier.verify('s');
    expect(last.code).toBe('RATE_LIMITED');
    expect(verificationHeaders(last).ratelimit).toBe('"tb";r=0;t=6');
    // A window has room again only when it ends.
    await verifier.verify('w');
    const spent = await verifier.verify('w');
    expect(spent.limits[0].roomMs).toBeUndefined();
    expect(verificationHeaders(spent)['x-ratelimit-reset']).toBe(String(Math.ceil((Math.floor(now.t / 60_000) * 60_000 + 60_000) / 1000)));
  });

  it('applies only the route-selected limits (unknown names ignored)', async () => {
    const { verifier, store } = setup({ s: key() });
    const result = await verifier.verify('s', { limits: ['sustained', 'nope'] });
    expect(store.requests[0].limits.map((l) => l.name)).toEqual(['sustained']);
    expect(result.limits.map((l) => l.name)).toEqual(['sustained']);
  });

  it('skips the store for a key with no limits and no quota', async () => {
    const { verifier, store } = setup({ free: key({ limits: [] }) });
    expect(await verifier.verify('free')).toMatchObject({ valid: true, code: 'VALID', limits: [] });
    expect(store.requests).toHaveLength(0);
  });

  it('blocked-key shortcut: after a RATE_LIMITED answer, the same key and cost is refused locally until the wait is over', async () => {
    const { verifier, store, now } = setup({ s: key({ limits: [{ name: 'burst', algorithm: 'token_bucket', limit: 1, windowMs: 10_000, scope: 'key' }] }) });
    expect((await verifier.verify('s')).valid).toBe(true);
    const refused = await verifier.verify('s');
    expect(refused).toMatchObject({ valid: false, code: 'RATE_LIMITED', retryAfterMs: 10_000 });
    expect(store.requests).toHaveLength(2);
    for (let i = 0; i < 10; i++) {
      now.t += 999;
      const local = await verifier.verify('s');
      expect(local.code).toBe('RATE_LIMITED');
      expect(local.retryAfterMs).toBe(10_000 - 999 * (i + 1));
    }
    expect(store.requests).toHaveLength(2);
    expect(verifier.counters.blockedShortcuts).toBe(10);
    // A larger cost is not answered from the block: its wait is not the remembered one (here it
    // can never fit a bucket of 1, which only the store's answer says).
    const larger = await verifier.verify('s', { cost: 2 });
    expect(store.requests).toHaveLength(3);
    expect(larger).toMatchObject({ code: 'RATE_LIMITED', neverFits: true });
    expect(larger.retryAfterMs).toBeUndefined();
    now.t += 10; // 10 000 ms after the refusal: the bucket has a token again
    expect((await verifier.verify('s')).valid).toBe(true);
    expect(store.requests).toHaveLength(4);
  });

  it('the shortcut is dropped when the key or its plan is invalidated', async () => {
    const { verifier, store } = setup({ s: key({ limits: [{ name: 'burst', algorithm: 'fixed_window', limit: 1, windowMs: 60_000, scope: 'key' }] }) });
    await verifier.verify('s');
    await verifier.verify('s');
    await verifier.verify('s');
    expect(store.requests).toHaveLength(2);
    verifier.invalidate({ kind: 'plan', id: 'p1' });
    await verifier.verify('s');
    expect(store.requests).toHaveLength(3);
  });

  it('looks each secret up once, then never again until invalidated', async () => {
    const { verifier, lookups } = setup({ s: key() });
    await Promise.all(Array.from({ length: 20 }, () => verifier.verify('s', { limits: [] })));
    expect(lookups).toHaveLength(1);
    verifier.invalidate({ kind: 'key', id: 'k1' });
    await verifier.verify('s', { limits: [] });
    expect(lookups).toHaveLength(2);
  });

  it('QUOTA_EXCEEDED once the quota is spent, with the wait until the period ends', async () => {
    const { verifier, now } = setup({ s: key({ limits: [], quota: { limit: 2, period: 'day', resetDay: 1 } }) });
    await verifier.verify('s');
    await verifier.verify('s');
    const refused = await verifier.verify('s');
    const dayEnd = Math.ceil(now.t / 86_400_000) * 86_400_000;
    expect(refused).toMatchObject({ valid: false, code: 'QUOTA_EXCEEDED', quota: { limit: 2, remaining: 0, resetAt: dayEnd }, retryAfterMs: dayEnd - now.t });
  });

  it('rejects a bad cost before doing anything', async () => {
    const { verifier, lookups } = setup({ s: key() });
    await expect(verifier.verify('s', { cost: 1.5 })).rejects.toThrow(/cost/);
    expect(lookups).toHaveLength(0);
  });
});

describe('KeyVerifier onDecision', () => {
  it('hears every decision, and a failing listener never breaks verification', async () => {
    const record = key({ limits: [{ name: 'burst', algorithm: 'fixed_window', limit: 2, windowMs: 60_000, scope: 'key' }] });
    const heard: string[] = [];
    const warnings: string[] = [];
    let explode = false;
    const verifier = new KeyVerifier({
      store: new MemoryStore({ clock: () => 1_700_000_000_000 }),
      lookup: async (hash) => (hash === sha256Hex('s') ? record : null),
      clock: () => 1_700_000_000_000,
      logger: { warn: (message) => warnings.push(message) },
      onDecision: (result) => {
        heard.push(result.code);
        if (explode) throw new Error('listener bug');
      },
    });
    await verifier.verify('s');
    await verifier.verify('s');
    await verifier.verify('nope');
    explode = true;
    const result = await verifier.verify('s');
    expect(result.code).toBe('RATE_LIMITED');
    expect(heard).toEqual(['VALID', 'VALID', 'NOT_FOUND', 'RATE_LIMITED']);
    expect(warnings).toEqual(['onDecision listener failed: listener bug']);
  });
});

describe('KeyVerifier metering switch', () => {
  it('meters every decision in the same store call by default, and not at all when switched off', async () => {
    const record = key();
    for (const metering of [undefined, false]) {
      const store = new CountingStore(new MemoryStore({ clock: () => 1_700_000_000_000 }));
      const verifier = new KeyVerifier({ store, lookup: async () => record, clock: () => 1_700_000_000_000, ...(metering === false ? { metering } : {}) });
      await verifier.verify('s');
      expect(store.requests).toHaveLength(1);
      expect(store.requests[0].meter).toEqual(metering === false ? undefined : { keyPrefix: 'usage:', member: 'k1' });
    }
  });
});

describe('KeyVerifier headers and route selections', () => {
  it('cost > 1: the headers name the limit that refuses longest, not the one with fewer remaining', async () => {
    const { verifier, now } = setup({
      s: key({
        limits: [
          { name: 'small', algorithm: 'fixed_window', limit: 100, windowMs: 10_000, scope: 'key' },
          { name: 'big', algorithm: 'fixed_window', limit: 10, windowMs: 60_000, scope: 'key' },
        ],
      }),
    });
    now.t = 1_700_000_080_000; // 40 s into big's minute, at the start of one of small's 10 s windows
    await verifier.verify('s', { cost: 7 }); // small: 93 left, big: 3 left
    await verifier.verify('s', { cost: 92, limits: ['small'] }); // small: 1 left
    // A cost-5 request: both refuse, small (1 left) for 10 s, big (3 left) for 20 s.
    const refused = await verifier.verify('s', { cost: 5 });
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', retryAfterMs: 20_000 });
    expect(refused.limits.map((l) => [l.name, l.remaining, l.blocked, l.retryAfterMs])).toEqual([
      ['small', 1, true, 10_000],
      ['big', 3, true, 20_000],
    ]);
    const headers = verificationHeaders(refused, () => 0);
    expect(headers['ratelimit']).toBe('"big";r=3;t=20');
    expect(headers['x-ratelimit-limit']).toBe('10');
    expect(headers['x-ratelimit-remaining']).toBe('3');
    expect(headers['retry-after']).toBe('20');
  });

  it('a cost that can never fit: RATE_LIMITED with neverFits, no retryAfterMs, and a Retry-After of the window', async () => {
    const { verifier } = setup({ s: key() });
    const refused = await verifier.verify('s', { cost: 4 }); // burst: 3 per minute
    expect(refused).toMatchObject({ valid: false, code: 'RATE_LIMITED', neverFits: true });
    expect(refused.retryAfterMs).toBeUndefined();
    const headers = verificationHeaders(refused, () => 0);
    expect(headers['ratelimit']).toBe('"burst";r=3;t=60');
    expect(headers['retry-after']).toBe('60');
  });

  it('reuses one policy array per route selection, and per quota period', async () => {
    const { verifier, now } = setup({ s: key({ quota: { limit: 1000, period: 'day', resetDay: 1 } }) });
    const route = ['burst'];
    const a = await verifier.verify('s', { limits: route });
    const b = await verifier.verify('s', { limits: route });
    const c = await verifier.verify('s', { limits: ['burst'] }); // a fresh array with the same names
    expect(a.policy?.map((p) => p.name)).toEqual(['burst', 'quota']);
    expect(b.policy).toBe(a.policy);
    expect(c.policy).toBe(a.policy);
    const all = await verifier.verify('s');
    expect(all.policy).not.toBe(a.policy);
    now.t = (Math.floor(now.t / 86_400_000) + 1) * 86_400_000; // the next day: a new quota period
    const nextDay = await verifier.verify('s', { limits: route });
    expect(nextDay.policy).not.toBe(a.policy);
    expect(nextDay.policy).toEqual(a.policy);
  });

  it('an unknown key carries the defaultPolicy when one is configured', async () => {
    const defaultPolicy = [{ name: 'anonymous', limit: 0, windowMs: 60_000 }];
    const verifier = new KeyVerifier({ store: new MemoryStore(), lookup: async () => null, defaultPolicy });
    expect(verifier.defaultPolicy).toEqual(defaultPolicy);
    expect(await verifier.verify('nope')).toMatchObject({ code: 'NOT_FOUND', policy: defaultPolicy });
    expect((await setup({}).verifier.verify('nope')).policy).toBeUndefined();
  });

  it('blocked-key shortcut: Retry-After counts from when the refusal arrived, the block from when the check was sent', async () => {
    const now = { t: 1_700_000_000_000 };
    const inner = new MemoryStore({ clock: () => now.t });
    // A store that takes 40 ms (on the verifier's clock) to answer, deciding at the start.
    const slow: RateLimitStore = {
      check: async (req) => {
        const result = await inner.check(req);
        now.t += 40;
        return result;
      },
    };
    const record = key({ limits: [{ name: 'burst', algorithm: 'fixed_window', limit: 1, windowMs: 10_000, scope: 'key' }] });
    const verifier = new KeyVerifier({ store: slow, lookup: async () => record, clock: () => now.t });
    now.t = Math.ceil(now.t / 10_000) * 10_000; // the start of a window
    await verifier.verify('s');
    const refused = await verifier.verify('s'); // decided at +40 ms, answered at +80 ms
    expect(refused.retryAfterMs).toBe(10_000 - 40);
    const local = await verifier.verify('s');
    expect(verifier.counters.blockedShortcuts).toBe(1);
    expect(local.retryAfterMs).toBe(10_000 - 40); // from the arrival (+80): never early
    now.t += 10_000 - 40 - 40; // the window's end, as the limit sees it
    await verifier.verify('s'); // the block (counted from the send, +40) is over: asks the store again
    expect(verifier.counters.blockedShortcuts).toBe(1);
  });
});

/** Enough of an ioredis client for pub/sub and PING: publish delivers to every subscribed duplicate. */
class FakeRedis extends EventEmitter {
  status = 'ready';
  pingFails = false;
  pings = 0;
  readonly published: string[] = [];
  private readonly bus: FakeRedis[];
  private channels = new Set<string>();

  constructor(bus: FakeRedis[] = []) {
    super();
    this.bus = bus;
    bus.push(this);
  }

  async ping(): Promise<string> {
    this.pings++;
    if (this.pingFails) throw new Error('Connection is closed.');
    return 'PONG';
  }

  async publish(channel: string, message: string): Promise<number> {
    this.published.push(message);
    const receivers = this.bus.filter((client) => client.channels.has(channel));
    queueMicrotask(() => receivers.forEach((client) => client.emit('message', channel, message)));
    return receivers.length;
  }

  async subscribe(channel: string): Promise<number> {
    this.channels.add(channel);
    return this.channels.size;
  }

  duplicate(): FakeRedis {
    return new FakeRedis(this.bus);
  }

  async quit(): Promise<string> {
    return 'OK';
  }

  disconnect(): void {}

  async callBuffer(): Promise<unknown> {
    throw new Error('not used: the verifier decides with its store');
  }

  async script(): Promise<unknown> {
    throw new Error('not used');
  }
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('KeyVerifier live invalidation', () => {
  function instance(redis: FakeRedis) {
    let lookups = 0;
    const record = key();
    const verifier = new KeyVerifier({
      store: new MemoryStore(),
      redis: redis as unknown as GuardRedisClient,
      lookup: async () => {
        lookups++;
        return record;
      },
    });
    return { verifier, lookups: () => lookups };
  }

  it('skips the echo of its own broadcast (applied once), while other instances and origin-less messages apply', async () => {
    const redis = new FakeRedis();
    const a = instance(redis);
    const b = instance(redis.duplicate());
    await Promise.all([a.verifier.start(), b.verifier.start()]);
    await flush();
    await a.verifier.verify('s');
    await b.verifier.verify('s');
    expect([a.lookups(), b.lookups()]).toEqual([1, 1]);

    await a.verifier.broadcastInvalidation({ kind: 'key', id: 'k1' });
    expect(JSON.parse(redis.published[0])).toEqual({ kind: 'key', id: 'k1', origin: a.verifier.origin });
    await a.verifier.verify('s'); // applied locally at once: reloaded
    await flush(); // the echo reaches A (skipped) and B (applied)
    await a.verifier.verify('s');
    await b.verifier.verify('s');
    expect([a.lookups(), b.lookups()]).toEqual([2, 2]);

    // What the API's admin connection publishes (publishInvalidation, no origin): everyone applies it.
    await redis.publish('tg:invalidate', JSON.stringify({ kind: 'all' }));
    await flush();
    await a.verifier.verify('s');
    await b.verifier.verify('s');
    expect([a.lookups(), b.lookups()]).toEqual([3, 3]);
    await Promise.all([a.verifier.close(), b.verifier.close()]);
  });
});

describe('KeyVerifier.probe (for /health)', () => {
  it('closes a breaker left half-open by an outage once Redis answers a PING, with no traffic at all', async () => {
    let now = 1_700_000_000_000;
    const redis = new FakeRedis();
    const failing: RateLimitStore = { check: () => Promise.reject(new Error('ECONNREFUSED')) };
    const verifier = new KeyVerifier({ store: failing, redis: redis as unknown as GuardRedisClient, lookup: async () => key(), clock: () => now, liveInvalidation: false, breakerFailureThreshold: 2, breakerOpenMs: 1000 });
    await verifier.verify('s');
    await verifier.verify('s');
    expect(verifier.health()).toMatchObject({ store: 'degraded', breaker: 'open' });

    // Cooling down: the probe sends nothing.
    expect(await verifier.probe()).toMatchObject({ breaker: 'open' });
    expect(redis.pings).toBe(0);

    // Due, but Redis is still away: the PING fails and the breaker opens for another openMs.
    now += 1000;
    redis.pingFails = true;
    expect(await verifier.probe()).toMatchObject({ store: 'degraded', breaker: 'open' });
    expect(redis.pings).toBe(1);

    // Redis is back and no request comes: the next /health probe closes the breaker.
    now += 1000;
    redis.pingFails = false;
    expect(verifier.health().breaker).toBe('half-open');
    expect(await verifier.probe()).toEqual({ store: 'up', breaker: 'closed', invalidation: 'off' });
    expect(redis.pings).toBe(2);

    // Closed: nothing to probe.
    await verifier.probe();
    expect(redis.pings).toBe(2);
  });
});

describe('KeyVerifier failMode open', () => {
  it('admits, and fills the state from the instance\'s own counters so the headers carry real numbers', async () => {
    const failing: RateLimitStore = { check: () => Promise.reject(new Error('ECONNREFUSED')) };
    const record = key({ failMode: 'open', limits: [{ name: 'burst', algorithm: 'fixed_window', limit: 2, windowMs: 60_000, scope: 'key' }], quota: { limit: 100, period: 'day', resetDay: 1 } });
    const verifier = new KeyVerifier({ store: failing, lookup: async () => record });
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await verifier.verify('s'));
    expect(results.map((r) => [r.valid, r.code, r.degraded, r.limits[0]?.remaining, r.quota?.remaining])).toEqual([
      [true, 'VALID', true, 1, 99],
      [true, 'VALID', true, 0, 98],
      [true, 'VALID', true, 0, 98], // admitted although the local count is spent
    ]);
    const headers = verificationHeaders(results[0]);
    expect(headers['ratelimit']).toMatch(/^"burst";r=1;t=\d+$/);
    expect(headers['x-ratelimit-remaining']).toBe('1');
    expect(headers['retry-after']).toBeUndefined();
    expect(verifier.counters.degradedDecisions).toBe(3);
  });
});
