import type { KeyLookup, KeyRecord } from './key-record';

export interface KeyCacheOptions {
  /** Bound on cached secrets (LRU). Default 10 000. */
  maxEntries?: number;
  /** How long an unknown secret stays known as unknown. Default 30 s. */
  negativeTtlMs?: number;
  /** A known key older than this is served once more and reloaded in the background. Default 5 min. */
  maxAgeMs?: number;
  clock?: () => number;
  /** Called when a background reload fails (the stale entry is kept). */
  onRefreshError?: (err: unknown) => void;
}

interface Entry {
  record: KeyRecord | null;
  loadedAt: number;
}

export interface KeyCacheStats {
  hits: number;
  misses: number;
  lookups: number;
  size: number;
}

/**
 * secretHash -> KeyRecord (or null: unknown secret), bounded LRU over a Map's insertion order.
 * Concurrent misses for one hash share one lookup; expiry is checked on read, so no timers.
 * Positive entries live until invalidated, with a safety max age after which they are
 * re-validated in the background while still being served.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inflight = new Map<string, Promise<KeyRecord | null>>();
  private readonly maxEntries: number;
  private readonly negativeTtlMs: number;
  private readonly maxAgeMs: number;
  private readonly clock: () => number;
  private readonly onRefreshError: (err: unknown) => void;
  /** Bumped by every invalidation: a lookup that started before one must not be cached. */
  private generation = 0;
  private hits = 0;
  private misses = 0;
  private lookups = 0;

  constructor(
    private readonly lookup: KeyLookup,
    opts: KeyCacheOptions = {},
  ) {
    this.maxEntries = positiveInt('maxEntries', opts.maxEntries ?? 10_000);
    this.negativeTtlMs = opts.negativeTtlMs ?? 30_000;
    this.maxAgeMs = opts.maxAgeMs ?? 300_000;
    this.clock = opts.clock ?? Date.now;
    this.onRefreshError = opts.onRefreshError ?? (() => undefined);
  }

  get size(): number {
    return this.entries.size;
  }

  stats(): KeyCacheStats {
    return { hits: this.hits, misses: this.misses, lookups: this.lookups, size: this.entries.size };
  }

  /** The key for a secret hash: from the cache, or one shared lookup. Rejects when the lookup fails. */
  get(secretHash: string): Promise<KeyRecord | null> {
    const entry = this.entries.get(secretHash);
    if (entry !== undefined) {
      const age = this.clock() - entry.loadedAt;
      if (entry.record === null && age >= this.negativeTtlMs) {
        this.entries.delete(secretHash);
      } else {
        this.hits++;
        // Re-inserting moves the entry to the young end: that is the LRU.
        this.entries.delete(secretHash);
        this.entries.set(secretHash, entry);
        if (entry.record !== null && age >= this.maxAgeMs && !this.inflight.has(secretHash)) {
          this.load(secretHash).catch(this.onRefreshError);
        }
        return Promise.resolve(entry.record);
      }
    }
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
  }

  private drop(match: (record: KeyRecord) => boolean): number {
    this.generation++;
    let dropped = 0;
    for (const [hash, entry] of this.entries) {
      if (entry.record !== null && match(entry.record)) {
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
    const entries = this.entries;
    entries.delete(secretHash);
    entries.set(secretHash, { record, loadedAt: this.clock() });
    while (entries.size > this.maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest === undefined) break;
      entries.delete(oldest);
    }
  }
}

function positiveInt(field: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${field} must be a positive integer`);
  return value;
}
