import { describe, expect, it } from 'vitest';
import { KeyCache } from './key-cache';
import type { KeyRecord } from './key-record';

function record(id: string, planId = 'plan_a'): KeyRecord {
  return { id, ownerId: null, planId, enabled: true, expiresAt: null, limits: [], quota: null, failMode: 'closed' };
}

/** The app's data source: a map from secret hash to key, counting how often it is asked. */
function source(rows: Record<string, KeyRecord | null>) {
  const calls: string[] = [];
  const lookup = async (hash: string) => {
    calls.push(hash);
    return rows[hash] ?? null;
  };
  return { calls, lookup, rows };
}

describe('KeyCache', () => {
  it('serves a loaded key from memory: 100 gets, 1 lookup', async () => {
    const db = source({ h1: record('k1') });
    const cache = new KeyCache(db.lookup);
    for (let i = 0; i < 100; i++) expect((await cache.get('h1'))?.id).toBe('k1');
    expect(db.calls).toHaveLength(1);
    expect(cache.stats()).toMatchObject({ hits: 99, misses: 1, lookups: 1, size: 1 });
  });

  it('peek answers from memory only: undefined before the load, the key or null after, never a lookup', async () => {
    const db = source({ h1: record('k1') });
    const cache = new KeyCache(db.lookup);
    expect(cache.peek('h1')).toBeUndefined();
    expect(cache.peek('unknown')).toBeUndefined();
    expect(db.calls).toEqual([]);
    await cache.get('h1');
    await cache.get('unknown');
    expect(cache.peek('h1')?.id).toBe('k1');
    expect(cache.peek('unknown')).toBeNull();
    expect(db.calls).toEqual(['h1', 'unknown']);
    expect(cache.stats()).toMatchObject({ hits: 2, misses: 2, lookups: 2 });
  });

  it('shares one lookup between 50 concurrent misses of the same hash (single-flight)', async () => {
    const db = source({ h1: record('k1') });
    const cache = new KeyCache(db.lookup);
    const results = await Promise.all(Array.from({ length: 50 }, () => cache.get('h1')));
    expect(db.calls).toEqual(['h1']);
    expect(results.every((r) => r?.id === 'k1')).toBe(true);
  });

  it('evicts the least recently used entry beyond maxEntries (3)', async () => {
    const db = source({ a: record('a'), b: record('b'), c: record('c'), d: record('d') });
    const cache = new KeyCache(db.lookup, { maxEntries: 3 });
    await cache.get('a');
    await cache.get('b');
    await cache.get('c');
    await cache.get('a'); // a is now the most recent: b is the oldest
    await cache.get('d');
    expect(cache.size).toBe(3);
    db.calls.length = 0;
    await cache.get('a');
    await cache.get('c');
    await cache.get('d');
    expect(db.calls).toEqual([]);
    await cache.get('b');
    expect(db.calls).toEqual(['b']);
  });

  it('never evicts a key used at least once every maxEntries / 2 loads, and evicts one left unused', async () => {
    const rows: Record<string, KeyRecord> = { hot: record('hot'), idle: record('idle') };
    for (let i = 0; i < 500; i++) rows[`k${i}`] = record(`k${i}`);
    const db = source(rows);
    const cache = new KeyCache(db.lookup, { maxEntries: 10 });
    await cache.get('hot');
    await cache.get('idle');
    // 500 other keys go through a cache of 10; 'hot' is read after every 5th of them.
    for (let i = 0; i < 500; i++) {
      await cache.get(`k${i}`);
      if (i % 5 === 4) expect((await cache.get('hot'))?.id).toBe('hot');
    }
    expect(db.calls.filter((hash) => hash === 'hot')).toHaveLength(1);
    expect(cache.size).toBe(10);
    expect(cache.peek('idle')).toBeUndefined();
    // The most recent loads are all still there: eviction took the oldest, not the newest.
    for (let i = 491; i < 500; i++) expect(cache.peek(`k${i}`)?.id).toBe(`k${i}`);
  });

  it('keeps unknown secrets in their own smaller LRU: a flood of bad secrets never evicts a known key', async () => {
    const db = source({ a: record('a'), b: record('b'), c: record('c') });
    const cache = new KeyCache(db.lookup, { maxEntries: 3, negativeMaxEntries: 2 });
    for (const h of ['a', 'b', 'c']) await cache.get(h);
    for (let i = 0; i < 1000; i++) expect(await cache.get(`bad_${i}`)).toBeNull();
    expect(cache.stats()).toMatchObject({ size: 3, negativeSize: 2 });
    db.calls.length = 0;
    for (const h of ['a', 'b', 'c']) expect((await cache.get(h))?.id).toBe(h);
    expect(db.calls).toEqual([]);
    // The two most recent bad secrets are still known as unknown; older ones were evicted.
    await cache.get('bad_999');
    await cache.get('bad_998');
    expect(db.calls).toEqual([]);
    await cache.get('bad_0');
    expect(db.calls).toEqual(['bad_0']);
  });

  it('defaults the unknown-secret LRU to a tenth of maxEntries', async () => {
    const cache = new KeyCache(source({}).lookup, { maxEntries: 100 });
    for (let i = 0; i < 50; i++) await cache.get(`bad_${i}`);
    expect(cache.stats()).toMatchObject({ size: 0, negativeSize: 10 });
  });

  it('a secret that becomes a key moves from the unknown LRU to the known one', async () => {
    let now = 0;
    const db = source({});
    const cache = new KeyCache(db.lookup, { negativeTtlMs: 1000, clock: () => now });
    expect(await cache.get('h')).toBeNull();
    db.rows.h = record('k1');
    now = 1000;
    expect((await cache.get('h'))?.id).toBe('k1');
    expect(cache.stats()).toMatchObject({ size: 1, negativeSize: 0 });
    cache.clear();
    expect(cache.stats()).toMatchObject({ size: 0, negativeSize: 0 });
  });

  it('forgets an unknown secret after the negative TTL (30 s), not before', async () => {
    let now = 1_000_000;
    const db = source({});
    const cache = new KeyCache(db.lookup, { negativeTtlMs: 30_000, clock: () => now });
    expect(await cache.get('nope')).toBeNull();
    now += 29_999;
    expect(await cache.get('nope')).toBeNull();
    expect(db.calls).toHaveLength(1);
    now += 1;
    db.rows.nope = record('k_new');
    expect((await cache.get('nope'))?.id).toBe('k_new');
    expect(db.calls).toHaveLength(2);
  });

  it('keeps a known key past the negative TTL, and reloads it in the background after maxAge while serving the old one', async () => {
    let now = 0;
    const db = source({ h1: record('k1', 'p1') });
    const cache = new KeyCache(db.lookup, { maxAgeMs: 300_000, clock: () => now });
    await cache.get('h1');
    now = 299_999;
    await cache.get('h1');
    expect(db.calls).toHaveLength(1);
    now = 300_000;
    db.rows.h1 = record('k1', 'p2');
    const served = await cache.get('h1');
    expect(served?.planId).toBe('p1');
    expect(db.calls).toHaveLength(2);
    await Promise.resolve();
    await Promise.resolve();
    expect((await cache.get('h1'))?.planId).toBe('p2');
    expect(db.calls).toHaveLength(2);
  });

  it('drops entries by key id (both secrets of a rotated key), by plan id, or all', async () => {
    const db = source({ old: record('k1', 'p1'), new: record('k1', 'p1'), other: record('k2', 'p2'), third: record('k3', 'p1') });
    const cache = new KeyCache(db.lookup);
    for (const h of ['old', 'new', 'other', 'third']) await cache.get(h);
    expect(cache.invalidateKey('k1')).toBe(2);
    expect(cache.size).toBe(2);
    expect(cache.invalidatePlan('p1')).toBe(1);
    expect(cache.size).toBe(1);
    cache.clear();
    expect(cache.size).toBe(0);
  });

  it('does not cache a lookup that an invalidation overtook (it may predate the change)', async () => {
    let release!: (r: KeyRecord) => void;
    const calls: string[] = [];
    const cache = new KeyCache((hash) => {
      calls.push(hash);
      return calls.length === 1 ? new Promise<KeyRecord>((resolve) => (release = resolve)) : Promise.resolve(record('k1', 'p_new'));
    });
    const pending = cache.get('h1');
    cache.invalidateKey('k1');
    release(record('k1', 'p_old'));
    expect((await pending)?.planId).toBe('p_old');
    expect((await cache.get('h1'))?.planId).toBe('p_new');
    expect(calls).toHaveLength(2);
  });

  it('does not cache a failed lookup: the next get asks again', async () => {
    let fail = true;
    const cache = new KeyCache(async () => {
      if (fail) throw new Error('db down');
      return record('k1');
    });
    await expect(cache.get('h1')).rejects.toThrow('db down');
    fail = false;
    expect((await cache.get('h1'))?.id).toBe('k1');
  });
});
