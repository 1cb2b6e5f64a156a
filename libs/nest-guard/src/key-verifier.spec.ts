import { MemoryStore, type CheckRequest, type CheckResult, type RateLimitStore } from '@tollgate/rate-limit';
import { describe, expect, it } from 'vitest';
import type { KeyRecord } from './key-record';
import { KeyVerifier, sha256Hex } from './key-verifier';

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
      const local = await verifier.verify('s', { cost: 1 + (i % 2) });
      expect(local.code).toBe('RATE_LIMITED');
      expect(local.retryAfterMs).toBe(10_000 - 999 * (i + 1));
    }
    expect(store.requests).toHaveLength(2);
    expect(verifier.counters.blockedShortcuts).toBe(10);
    now.t += 10; // 10 000 ms after the refusal: the bucket has a token again
    expect((await verifier.verify('s')).valid).toBe(true);
    expect(store.requests).toHaveLength(3);
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
