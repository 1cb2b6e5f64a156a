import { describe, expect, it } from 'vitest';
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

  it('expires entries lazily on read, with no timers', () => {
    const store = new MemoryStore();
    const limits: LimitCheck[] = [{ name: 'l', identity: 'k', params: { algorithm: 'gcra', limit: 1, windowMs: 1000 } }];
    expect(store.checkSync({ limits, nowMs: T0 }).allowed).toBe(true);
    expect(store.checkSync({ limits, nowMs: T0 + 999 }).allowed).toBe(false);
    expect(store.size).toBe(1);
    expect(store.checkSync({ limits, nowMs: T0 + 1000 }).allowed).toBe(true);
  });

  it('shapes a leaky bucket: allowed with delayMs, charged now', () => {
    const store = new MemoryStore();
    const limits: LimitCheck[] = [{ name: 's', identity: 'k', params: { algorithm: 'leaky_bucket', limit: 2, windowMs: 1000, burst: 2, shaping: true } }];
    const delays = Array.from({ length: 5 }, () => store.checkSync({ limits, nowMs: T0 })).map((r) => [r.allowed, r.delayMs]);
    expect(delays).toEqual([[true, 0], [true, 0], [true, 500], [true, 1000], [false, 0]]);
  });
});
