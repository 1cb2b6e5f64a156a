import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryStore } from './memory-store';
import type { LimitCheck } from './types';

const T0 = Date.UTC(2026, 2, 10, 8);

describe('MemoryStore', () => {
  it('charges no limit when any limit rejects (all-or-nothing)', () => {
    const store = new MemoryStore();
    const limits: LimitCheck[] = [
      { name: 'burst', identity: 'key:a', params: { algorithm: 'token_bucket', limit: 10, windowMs: 1000 } },
      { name: 'tight', identity: 'owner:o', params: { algorithm: 'fixed_window', limit: 2, windowMs: 60_000 } },
    ];
    expect(store.checkSync({ limits, nowMs: T0 }).allowed).toBe(true);
    expect(store.checkSync({ limits, nowMs: T0 }).allowed).toBe(true);
    const third = store.checkSync({ limits, nowMs: T0 });
    expect(third.code).toBe('RATE_LIMITED');
    expect(third.limits.map((l) => [l.name, l.allowed, l.remaining])).toEqual([['burst', true, 8], ['tight', false, 0]]);
    // The token bucket was not charged by the rejected request: 8 left, not 7.
    expect(store.checkSync({ limits: [limits[0]], nowMs: T0 }).limits[0].remaining).toBe(7);
  });

  it('consumes quota only for VALID requests and reports QUOTA_EXCEEDED without charging limits', () => {
    const store = new MemoryStore();
    const limits: LimitCheck[] = [{ name: 'rps', identity: 'key:q', params: { algorithm: 'token_bucket', limit: 3, windowMs: 1000 } }];
    const quota = { identity: 'key:q', limit: 4, period: 'day' as const };
    const codes = Array.from({ length: 6 }, () => store.checkSync({ limits, quota, nowMs: T0 }).code);
    expect(codes).toEqual(['VALID', 'VALID', 'VALID', 'RATE_LIMITED', 'RATE_LIMITED', 'RATE_LIMITED']);
    const fourth = store.checkSync({ limits, quota, nowMs: T0 + 1000 });
    expect(fourth.quota).toEqual({ limit: 4, remaining: 0, resetAt: Date.UTC(2026, 2, 11) });
    const fifth = store.checkSync({ limits, quota, nowMs: T0 + 1000 });
    expect(fifth.code).toBe('QUOTA_EXCEEDED');
    expect(fifth.retryAfterMs).toBe(Date.UTC(2026, 2, 11) - (T0 + 1000));
    expect(fifth.limits[0].remaining).toBe(2);
    // A new UTC day resets the quota.
    expect(store.checkSync({ limits, quota, nowMs: Date.UTC(2026, 2, 11) }).quota!.remaining).toBe(3);
  });

  it('is bounded: the least recently charged entry is evicted', () => {
    const store = new MemoryStore({ maxEntries: 3 });
    const check = (id: string) =>
      store.checkSync({ limits: [{ name: 'l', identity: id, params: { algorithm: 'fixed_window', limit: 1, windowMs: 60_000 } }], nowMs: T0 });
    check('a');
    check('b');
    check('c');
    check('d');
    expect(store.size).toBe(3);
    expect(check('a').allowed).toBe(true); // evicted, so fresh
    expect(check('d').allowed).toBe(false);
  });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires entries lazily on read, with no timers', () => {
    vi.useFakeTimers();
    const store = new MemoryStore();
    const limits: LimitCheck[] = [{ name: 'l', identity: 'k', params: { algorithm: 'gcra', limit: 1, windowMs: 1000 } }];
    const other: LimitCheck[] = [{ name: 'l', identity: 'k2', params: { algorithm: 'fixed_window', limit: 5, windowMs: 60_000 } }];
    expect(store.checkSync({ limits, nowMs: T0 }).allowed).toBe(true);
    expect(store.checkSync({ limits: other, nowMs: T0 }).allowed).toBe(true);
    expect(store.checkSync({ limits, nowMs: T0 + 999 }).allowed).toBe(false);
    expect(store.size).toBe(2);
    // Past its lifetime the entry is gone once read: a cost-0 read at T0 + 1000 leaves only k2.
    expect(store.checkSync({ limits, cost: 0, nowMs: T0 + 1000 }).allowed).toBe(true);
    expect(store.size).toBe(1);
    expect(store.checkSync({ limits, nowMs: T0 + 1000 }).allowed).toBe(true);
    expect(store.size).toBe(2);
    // No timer was ever scheduled (per hit or per key).
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stays rejected when hammered while new identities fill the store (a rejection counts as use)', () => {
    const store = new MemoryStore({ maxEntries: 4 });
    const fixed = { algorithm: 'fixed_window' as const, limit: 1, windowMs: 60_000 };
    const blocked: LimitCheck[] = [{ name: 'l', identity: 'key:blocked', params: fixed }];
    expect(store.checkSync({ limits: blocked, nowMs: T0 }).allowed).toBe(true);
    for (let i = 0; i < 50; i++) {
      store.checkSync({ limits: [{ name: 'l', identity: `key:new${i}`, params: fixed }], nowMs: T0 + i });
      expect(store.checkSync({ limits: blocked, nowMs: T0 + i }).allowed, `after ${i + 1} new identities`).toBe(false);
      expect(store.size).toBeLessThanOrEqual(4);
    }
    // The same through a multi-limit request, and for a quota that is spent.
    const quota = { identity: 'key:q', limit: 1, period: 'day' as const };
    const pair: LimitCheck[] = [
      { name: 'a', identity: 'key:pair', params: { algorithm: 'token_bucket', limit: 100, windowMs: 1000 } },
      { name: 'b', identity: 'key:pair', params: fixed },
    ];
    expect(store.checkSync({ limits: pair, nowMs: T0 + 100 }).allowed).toBe(true);
    expect(store.checkSync({ limits: [], quota, nowMs: T0 + 100 }).allowed).toBe(true);
    for (let i = 0; i < 50; i++) {
      store.checkSync({ limits: [{ name: 'l', identity: `key:more${i}`, params: fixed }], nowMs: T0 + 100 + i });
      expect(store.checkSync({ limits: pair, nowMs: T0 + 100 + i }).code).toBe('RATE_LIMITED');
      store.checkSync({ limits: [{ name: 'l', identity: `key:also${i}`, params: fixed }], nowMs: T0 + 100 + i });
      expect(store.checkSync({ limits: [], quota, nowMs: T0 + 100 + i }).code).toBe('QUOTA_EXCEEDED');
    }
  });

  it('stores no dead state: a state with no lifetime left is deleted, never written', () => {
    const store = new MemoryStore({ maxEntries: 2 });
    const bucket: LimitCheck[] = [{ name: 'b', identity: 'key:b', params: { algorithm: 'token_bucket', limit: 10, windowMs: 1000 } }];
    const log: LimitCheck[] = [{ name: 'l', identity: 'key:l', params: { algorithm: 'sliding_log', limit: 10, windowMs: 1000 } }];
    // Cost-0 reads of a full bucket and an empty log: nothing to store.
    expect(store.checkSync({ limits: bucket, cost: 0, nowMs: T0 }).limits[0].remaining).toBe(10);
    expect(store.checkSync({ limits: log, cost: 0, nowMs: T0 }).limits[0].remaining).toBe(10);
    expect(store.size).toBe(0);
    // A charged bucket that refills to full is deleted by the next cost-0 read, not rewritten.
    store.checkSync({ limits: bucket, nowMs: T0 });
    expect(store.size).toBe(1);
    store.checkSync({ limits: bucket, cost: 0, nowMs: T0 + 50 });
    expect(store.size).toBe(1);
    store.checkSync({ limits: bucket, cost: 0, nowMs: T0 + 99 });
    expect(store.checkSync({ limits: bucket, cost: 0, nowMs: T0 + 99 }).limits[0].remaining).toBe(9);
    expect(store.size).toBe(1);
    // So dead entries cannot evict live ones.
    const live: LimitCheck[] = [{ name: 'f', identity: 'key:f', params: { algorithm: 'fixed_window', limit: 1, windowMs: 60_000 } }];
    store.checkSync({ limits: live, nowMs: T0 });
    for (let i = 0; i < 10; i++) store.checkSync({ limits: [{ ...bucket[0], identity: `key:r${i}` }], cost: 0, nowMs: T0 });
    expect(store.checkSync({ limits: live, nowMs: T0 }).allowed).toBe(false);
  });

  it('rewrites an expired entry when it admits again: a fresh state, no growth, and a use for the LRU', () => {
    const store = new MemoryStore({ maxEntries: 4 });
    const fixed = { algorithm: 'fixed_window' as const, limit: 1, windowMs: 1000 };
    const check = (id: string, nowMs: number) => store.checkSync({ limits: [{ name: 'l', identity: id, params: fixed }], nowMs });
    for (const id of ['a', 'b', 'c', 'd']) expect(check(id, T0).allowed).toBe(true);
    // All four have expired at T0 + 1000; `a` admits again from fresh state and stays one entry.
    expect(check('a', T0 + 1000).limits[0].remaining).toBe(0);
    expect(store.size).toBe(4);
    // That was a use: the next insertion evicts `b`, the least recently used, not `a`.
    check('e', T0 + 1000);
    expect(store.size).toBe(4);
    expect(check('a', T0 + 1000).allowed).toBe(false);
    expect(check('b', T0 + 1000).allowed).toBe(true);
    // An expired entry that does not admit again (a cost that never fits) is deleted.
    const bucket: LimitCheck[] = [{ name: 'b', identity: 'key:t', params: { algorithm: 'token_bucket', limit: 5, windowMs: 1000 } }];
    const tokens = new MemoryStore();
    tokens.checkSync({ limits: bucket, nowMs: T0 });
    expect(tokens.size).toBe(1);
    expect(tokens.checkSync({ limits: bucket, cost: 6, nowMs: T0 + 5000 }).neverFits).toBe(true);
    expect(tokens.size).toBe(0);
  });

  it('returns results the caller keeps: later decisions change none already returned', () => {
    // Stored states are rewritten in place (no new state per decision); no result may see that.
    const store = new MemoryStore();
    const limits: LimitCheck[] = [{ name: 'b', identity: 'key:r', params: { algorithm: 'token_bucket', limit: 3, windowMs: 1000 } }];
    const results = Array.from({ length: 5 }, (_, i) => store.checkSync({ limits, nowMs: T0 + i }));
    const copies = structuredClone(results);
    for (let i = 0; i < 20; i++) store.checkSync({ limits, nowMs: T0 + 5 + i * 300 });
    expect(results).toEqual(copies);
    expect(results.map((r) => [r.allowed, r.limits[0].remaining])).toEqual([[true, 2], [true, 1], [true, 0], [false, 0], [false, 0]]);
    expect(new Set(results.map((r) => r.limits[0])).size).toBe(5);
  });

  it('keeps a sliding log to one entry per ms', () => {
    const store = new MemoryStore();
    const log: LimitCheck[] = [{ name: 'l', identity: 'key:l', params: { algorithm: 'sliding_log', limit: 1000, windowMs: 1000 } }];
    for (let i = 0; i < 300; i++) store.checkSync({ limits: log, nowMs: T0 + (i % 3) });
    for (let i = 0; i < 300; i++) store.checkSync({ limits: log, cost: 0, nowMs: T0 + 2 });
    const res = store.checkSync({ limits: log, cost: 0, nowMs: T0 + 2 });
    expect(res.limits[0].remaining).toBe(700);
  });

  it('shapes a leaky bucket: allowed with delayMs, charged now', () => {
    const store = new MemoryStore();
    const limits: LimitCheck[] = [{ name: 's', identity: 'k', params: { algorithm: 'leaky_bucket', limit: 2, windowMs: 1000, burst: 2, shaping: true } }];
    const delays = Array.from({ length: 5 }, () => store.checkSync({ limits, nowMs: T0 })).map((r) => [r.allowed, r.delayMs]);
    expect(delays).toEqual([[true, 0], [true, 0], [true, 500], [true, 1000], [false, 0]]);
  });
});
