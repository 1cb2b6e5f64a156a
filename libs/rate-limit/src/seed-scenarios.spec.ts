import { describe, expect, it } from 'vitest';
import { MemoryStore } from './memory-store';
import type { LimitCheck } from './types';

describe('seed scenarios (memory store)', () => {
  // The memory store decides synchronously, so these 400 are sequential by nature; the concurrent
  // version runs on Redis (redis-store.integration-spec.ts).
  it('400 requests at one instant against a token bucket of burst 100 refilling 10/s admit exactly 100', async () => {
    const store = new MemoryStore();
    const limits: LimitCheck[] = [{ name: 'burst', identity: 'key:seed', params: { algorithm: 'token_bucket', limit: 10, windowMs: 1000, burst: 100 } }];
    const now = Date.UTC(2026, 0, 1);
    const results = [];
    for (let i = 0; i < 400; i++) results.push(await store.check({ limits, nowMs: now }));
    expect(results.filter((r) => r.allowed)).toHaveLength(100);
    const firstRejected = results.find((r) => !r.allowed)!;
    expect(firstRejected.code).toBe('RATE_LIMITED');
    // One token refills every 100 ms.
    expect(firstRejected.retryAfterMs).toBe(100);
    expect((await store.check({ limits, nowMs: now + 100 })).allowed).toBe(true);
    expect((await store.check({ limits, nowMs: now + 100 })).allowed).toBe(false);
  });

  it('40 at the end of one minute and 40 at the start of the next both pass a fixed window of 40/min while a sliding log rejects the second 40', () => {
    const store = new MemoryStore();
    const fixed: LimitCheck[] = [{ name: 'fixed', identity: 'key:seed', params: { algorithm: 'fixed_window', limit: 40, windowMs: 60_000 } }];
    const log: LimitCheck[] = [{ name: 'log', identity: 'key:seed', params: { algorithm: 'sliding_log', limit: 40, windowMs: 60_000 } }];
    const minute = Date.UTC(2026, 0, 1, 10, 31);
    const count = (limits: LimitCheck[], nowMs: number) =>
      Array.from({ length: 40 }, () => store.checkSync({ limits, nowMs })).filter((r) => r.allowed).length;
    expect(count(fixed, minute - 1)).toBe(40);
    expect(count(fixed, minute)).toBe(40);
    expect(count(log, minute - 1)).toBe(40);
    expect(count(log, minute)).toBe(0);
    // The log frees up exactly one window after the first 40.
    expect(store.checkSync({ limits: log, nowMs: minute }).retryAfterMs).toBe(59_999);
    expect(count(log, minute + 59_999)).toBe(40);
  });
});
