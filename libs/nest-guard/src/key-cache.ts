import type { KeyLookup, KeyRecord } from './key-record';

export interface KeyCacheOptions {
  /** Bound on cached known keys (LRU). Default 10 000. */
  maxEntries?: number;
  /**
   * Bound on cached unknown secrets, a separate LRU that can never evict a known key (a flood of
   * random secrets only churns this one). Default max(1, maxEntries / 10).
   */
  negativeMaxEntries?: number;
  /** How long an unknown secret stays known as unknown. Default 30 s. */
  negativeTtlMs?: number;
  /** A known key older than this is served once more and reloaded in the background. Default 5 min. */
  maxAgeMs?: number;
  clock?: () => number;
  /** Called when a background reload fails (the stale entry is kept). */
  onRefreshError?: (err: unknown) => void;
}

interface Entry<R extends KeyRecord | null> {
  record: R;
  loadedAt: number;
  /** `insertions` when this entry last went to the young end of its Map (see peek). */
  insertedAt: number;
}

export interface KeyCacheStats {
  hits: number;
  misses: number;
  lookups: number;
  /** Cached known keys. */
  size: number;
  /** Cached unknown secrets. */
  negativeSize: number;
}

/**
 * secretHash -> KeyRecord, or null for an unknown secret: two bounded LRUs over Maps' insertion
 * order, one for known keys and a smaller one for unknown secrets, so bad secrets never push
 * valid keys out (and their traffic onto the database). Concurrent misses for one hash share one
 * lookup; expiry is checked on read, so no timers. Known keys live until invalidated, with a
 * safety max age after which they are re-validated in the background while still being served.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry<KeyRecord>>();
  private readonly negatives = new Map<string, Entry<null>>();
  private readonly inflight = new Map<string, Promise<KeyRecord | null>>();
  private readonly maxEntries: number;
  private readonly negativeMaxEntries: number;
  private readonly negativeTtlMs: number;
  private readonly maxAgeMs: number;
  private readonly clock: () => number;
  private readonly onRefreshError: (err: unknown) => void;
  /** Bumped by every invalidation: a lookup that started before one must not be cached. */
  private generation = 0;
  /** Moves of known keys to the young end of `entries` so far (loads and LRU refreshes). */
  private insertions = 0;
  private hits = 0;
  private misses = 0;
  private lookups = 0;

  constructor(
    private readonly lookup: KeyLookup,
    opts: KeyCacheOptions = {},
  ) {
    this.maxEntries = positiveInt('maxEntries', opts.maxEntries ?? 10_000);
    this.negativeMaxEntries = positiveInt('negativeMaxEntries', opts.negativeMaxEntries ?? Math.max(1, Math.floor(this.maxEntries / 10)));
    this.negativeTtlMs = opts.negativeTtlMs ?? 30_000;
    this.maxAgeMs = opts.maxAgeMs ?? 300_000;
    this.clock = opts.clock ?? Date.now;
    this.onRefreshError = opts.onRefreshError ?? (() => undefined);
  }

  /** Cached known keys. */
  get size(): number {
    return this.entries.size;
  }

  stats(): KeyCacheStats {
    return { hits: this.hits, misses: this.misses, lookups: this.lookups, size: this.entries.size, negativeSize: this.negatives.size };
  }

  /** The key for a secret hash: from the cache, or one shared lookup. Rejects when the lookup fails. */
  get(secretHash: string): Promise<KeyRecord | null> {
    const cached = this.peek(secretHash);
    return cached === undefined ? this.miss(secretHash) : Promise.resolve(cached);
  }

  /**
   * The cached answer for a secret hash (a key, or null for a known-unknown secret), counted as a
   * hit; undefined when it must be loaded (then call get). The guard's hot path: a hit costs no
   * promise and no microtask.
   */
  peek(secretHash: string): KeyRecord | null | undefined {
    const entry = this.entries.get(secretHash);
    if (entry !== undefined) {
      this.hits++;
      // Re-inserting moves the entry to the young end: that is the LRU. An entry that went there
      // within the last maxEntries / 4 insertions stays put: it is in the young quarter, and is
      // evicted only after maxEntries insertions, so a key read at least once every
      // maxEntries / 2 loads is never evicted. A hot key then costs one Map lookup, not a delete
      // and a set (which, on a small Map, also rehashes it every few calls).
      if (this.insertions - entry.insertedAt > this.maxEntries >> 2) {
        this.entries.delete(secretHash);
        this.entries.set(secretHash, entry);
        entry.insertedAt = ++this.insertions;
      }
      if (this.clock() - entry.loadedAt >= this.maxAgeMs && !this.inflight.has(secretHash)) {
        this.load(secretHash).catch(this.onRefreshError);
      }
      return entry.record;
    }
    const negative = this.negatives.get(secretHash);
    if (negative !== undefined) {
      this.negatives.delete(secretHash);
      if (this.clock() - negative.loadedAt < this.negativeTtlMs) {
        this.hits++;
        this.negatives.set(secretHash, negative);
        return null;
      }
    }
    return undefined;
  }

  /** A miss: one lookup shared by every concurrent caller of the same hash. */
  private miss(secretHash: string): Promise<KeyRecord | null> {
    this.misses++;
    return this.inflight.get(secretHash) ?? this.load(secretHash);
  }

  /** Drops every entry of this key id (a key may be cached under an old and a new secret). */
  invalidateKey(keyId: string): number {
    return this.drop((record) => record.id === keyId);
  }

  invalidatePlan(planId: string): number {
    return this.drop((record) => record.planId === planId);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.negatives.clear();
  }

  private drop(match: (record: KeyRecord) => boolean): number {
    this.generation++;
    let dropped = 0;
    for (const [hash, entry] of this.entries) {
      if (match(entry.record)) {
        this.entries.delete(hash);
        dropped++;
      }
    }
    return dropped;
  }

  private load(secretHash: string): Promise<KeyRecord | null> {
    const generation = this.generation;
    this.lookups++;
    const promise = this.lookup(secretHash).then(
      (record) => {
        this.inflight.delete(secretHash);
        // An invalidation arrived while loading: the answer may predate it, so serve it once, cache nothing.
        if (generation === this.generation) this.store(secretHash, record);
        return record;
      },
      (err: unknown) => {
        this.inflight.delete(secretHash);
        throw err;
      },
    );
    this.inflight.set(secretHash, promise);
    return promise;
  }

  private store(secretHash: string, record: KeyRecord | null): void {
    const loadedAt = this.clock();
    if (record === null) {
      this.entries.delete(secretHash);
      this.negatives.delete(secretHash);
      this.negatives.set(secretHash, { record, loadedAt, insertedAt: 0 });
      evictOldest(this.negatives, this.negativeMaxEntries);
    } else {
      this.negatives.delete(secretHash);
      this.entries.delete(secretHash);
      this.entries.set(secretHash, { record, loadedAt, insertedAt: ++this.insertions });
      evictOldest(this.entries, this.maxEntries);
    }
  }
}

function evictOldest(entries: Map<string, unknown>, maxEntries: number): void {
  while (entries.size > maxEntries) {
    const oldest = entries.keys().next().value;
    if (oldest === undefined) break;
    entries.delete(oldest);
  }
}

function positiveInt(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${field} must be a positive integer`);
  return value;
}
