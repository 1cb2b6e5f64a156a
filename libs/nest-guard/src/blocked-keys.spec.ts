import { describe, expect, it } from 'vitest';
import { BlockedKeys } from './blocked-keys';

const burstBlocked = [
  { name: 'burst', limit: 10, windowMs: 1000, remaining: 0, resetMs: 900, retryAfterMs: 400 },
  { name: 'sustained', limit: 100, windowMs: 60_000, remaining: 50, resetMs: 30_000 },
];

describe('BlockedKeys (the blocked-key shortcut)', () => {
  it('refuses the same cost on a blocking limit until the wait is over, then forgets', () => {
    let now = 10_000;
    const blocked = new BlockedKeys(100, () => now);
    blocked.remember('k1', 'p1', 2, burstBlocked, now);
    expect(blocked.match('k1', 2, ['burst', 'sustained'])).toEqual({ retryAfterMs: 400, limits: [{ name: 'burst', retryAfterMs: 400, resetMs: 900 }] });
    // A larger cost waits longer than the remembered 400 ms: only the store knows how long.
    expect(blocked.match('k1', 5, ['burst'])).toBeUndefined();
    now += 399;
    expect(blocked.match('k1', 2, ['burst'])?.retryAfterMs).toBe(1);
    now += 1;
    expect(blocked.match('k1', 2, ['burst'])).toBeUndefined();
    expect(blocked.size).toBe(0);
  });

  it('lets a smaller or larger cost, another key, or a route without the blocking limit go to the store', () => {
    const blocked = new BlockedKeys(100, () => 0);
    blocked.remember('k1', 'p1', 2, burstBlocked, 0);
    expect(blocked.match('k1', 1, ['burst', 'sustained'])).toBeUndefined();
    expect(blocked.match('k2', 2, ['burst'])).toBeUndefined();
    expect(blocked.match('k1', 2, ['sustained'])).toBeUndefined();
  });

  it('ends the block counting from when the check was sent, but reports Retry-After counting from when the answer arrived', () => {
    let now = 1000;
    const blocked = new BlockedKeys(100, () => now);
    now = 1030; // the answer arrived 30 ms after the check was sent; Redis decided somewhere in between
    blocked.remember('k1', 'p1', 1, burstBlocked, 1000);
    // Never early: the true wait ends at the latest 400 ms after the answer arrived.
    expect(blocked.match('k1', 1, ['burst'])).toEqual({ retryAfterMs: 400, limits: [{ name: 'burst', retryAfterMs: 400, resetMs: 900 }] });
    now = 1399;
    expect(blocked.match('k1', 1, ['burst'])?.retryAfterMs).toBe(31);
    // Never longer than the truth: at the earliest the limit admits again 400 ms after the check was sent.
    now = 1400;
    expect(blocked.match('k1', 1, ['burst'])).toBeUndefined();
  });

  it('ignores limits without a finite wait (a cost that can never fit)', () => {
    const blocked = new BlockedKeys(100, () => 0);
    blocked.remember('k1', 'p1', 1, [{ name: 'burst', limit: 1, windowMs: 1000, remaining: 0, resetMs: 0, retryAfterMs: Infinity }], 0);
    expect(blocked.size).toBe(0);
  });

  it('forgets on invalidation of the key, of its plan, or of all', () => {
    const blocked = new BlockedKeys(100, () => 0);
    blocked.remember('k1', 'p1', 1, burstBlocked, 0);
    blocked.remember('k2', 'p2', 1, burstBlocked, 0);
    blocked.remember('k3', 'p2', 1, burstBlocked, 0);
    blocked.forgetKey('k1');
    expect(blocked.match('k1', 1, ['burst'])).toBeUndefined();
    blocked.forgetPlan('p2');
    expect(blocked.size).toBe(0);
    blocked.remember('k1', 'p1', 1, burstBlocked, 0);
    blocked.clear();
    expect(blocked.size).toBe(0);
  });

  it('holds at most maxKeys keys, dropping the oldest', () => {
    const blocked = new BlockedKeys(2, () => 0);
    for (const id of ['a', 'b', 'c']) blocked.remember(id, 'p', 1, burstBlocked, 0);
    expect(blocked.size).toBe(2);
    expect(blocked.match('a', 1, ['burst'])).toBeUndefined();
    expect(blocked.match('c', 1, ['burst'])?.retryAfterMs).toBe(400);
  });
});
