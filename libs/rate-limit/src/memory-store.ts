import { decideLimit, type LimitState } from './decide-limit';
import { InvalidLimitParamsError } from './errors';
import { quotaPeriod } from './quota-period';
import { resolveLimitParams } from './resolve-limit-params';
import type { CheckRequest, CheckResult, Decision, LimitCheck, LimitOutcome, LimitParams, RateLimitStore } from './types';
import { validateCost, validateIdentity, validateQuotaCheck } from './validate-limit-params';

interface QuotaState {
  startMs: number;
  count: number;
}

interface Entry {
  state: LimitState | QuotaState;
  /** Lazy expiry: an entry read at or after this instant counts as absent. */
  expiresAt: number;
}

export interface MemoryStoreOptions {
  /** Bound on stored counters (limit states + quotas); the least recently charged is evicted. Default 100 000. */
  maxEntries?: number;
  /** Clock in epoch ms; default Date.now. */
  clock?: () => number;
}

// Callers reuse LimitCheck objects (from a cached key entry), so building and hashing the map key
// once per object, not per request, is most of the store's speed. Keyed on the object and its
// fields, so a mutated check is not served a stale key.
const keyCache = new WeakMap<LimitCheck, { identity: string; name: string; algorithm: string; key: string }>();

function stateKey(check: LimitCheck, params: LimitParams): string {
  const cached = keyCache.get(check);
  if (cached !== undefined && cached.identity === check.identity && cached.name === check.name && cached.algorithm === params.algorithm) {
    return cached.key;
  }
  validateIdentity('identity', check.identity);
  const key = `${check.identity}\u0000${check.name}\u0000${params.algorithm}`;
  keyCache.set(check, { identity: check.identity, name: check.name, algorithm: params.algorithm, key });
  return key;
}

/**
 * In-process store: the same decisions as RedisStore on the same clock, for tests, single
 * instances and failMode "local". Bounded LRU (a Map's insertion order), expiry checked on read:
 * no timers at all. Metering is ignored here (usage lives in Redis).
 */
export class MemoryStore implements RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly clock: () => number;

  constructor(opts: MemoryStoreOptions = {}) {
    const maxEntries = opts.maxEntries ?? 100_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new InvalidLimitParamsError('maxEntries', 'must be a positive integer');
    this.maxEntries = maxEntries;
    this.clock = opts.clock ?? Date.now;
  }

  /** Number of live-or-not-yet-collected entries (expired ones go when read or evicted). */
  get size(): number {
    return this.entries.size;
  }

  check(req: CheckRequest): Promise<CheckResult> {
    try {
      return Promise.resolve(this.checkSync(req));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The same as check, without the promise: for in-process guards and benchmarks. */
  checkSync(req: CheckRequest): CheckResult {
    const now = req.nowMs ?? this.clock();
    if (!Number.isInteger(now) || now < 0) throw new InvalidLimitParamsError('nowMs', 'must be a non-negative integer');
    const cost = validateCost(req.cost);
    const checks = req.limits;
    const n = checks.length;
    const keys: string[] = new Array(n);
    const decisions: Decision<LimitState | undefined>[] = new Array(n);
    const limits: LimitOutcome[] = new Array(n);
    let allowed = true;
    let neverFits = false;
    let retryAfterMs = 0;
    let delayMs = 0;
    for (let i = 0; i < n; i++) {
      const check = checks[i];
      const params = resolveLimitParams(check.params);
      const key = stateKey(check, params);
      const d = decideLimit(this.read(key, now) as LimitState | undefined, now, params, cost);
      keys[i] = key;
      decisions[i] = d;
      limits[i] = {
        name: check.name,
        limit: params.limit,
        allowed: d.allowed,
        remaining: d.remaining,
        // Capped as the Redis store must cap them (its integer replies are exact only up to 2^53).
        resetMs: d.resetMs > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : d.resetMs,
        retryAfterMs: d.retryAfterMs > Number.MAX_SAFE_INTEGER && d.retryAfterMs !== Infinity ? Number.MAX_SAFE_INTEGER : d.retryAfterMs,
        delayMs: d.delayMs > Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : d.delayMs,
        neverFits: d.neverFits,
      };
      if (!d.allowed) {
        allowed = false;
        if (d.neverFits) neverFits = true;
        if (limits[i].retryAfterMs > retryAfterMs) retryAfterMs = limits[i].retryAfterMs;
      } else if (limits[i].delayMs > delayMs) {
        delayMs = limits[i].delayMs;
      }
    }

    let code: CheckResult['code'] = allowed ? 'VALID' : 'RATE_LIMITED';
    let quotaOutcome: CheckResult['quota'];
    let quotaKey = '';
    let quotaNext: QuotaState | undefined;
    let quotaTtl = 0;
    if (req.quota !== undefined) {
      const quota = validateQuotaCheck(req.quota);
      const { startMs, endMs } = quotaPeriod(now, quota.period, quota.resetDay);
      quotaKey = `${quota.identity}\u0000quota`;
      const stored = this.read(quotaKey, now) as QuotaState | undefined;
      const used = stored !== undefined && stored.startMs === startMs ? stored.count : 0;
      let remaining = quota.limit - used;
      if (allowed) {
        if (used + cost <= quota.limit) {
          quotaNext = { startMs, count: used + cost };
          quotaTtl = endMs - now;
          remaining -= cost;
        } else {
          allowed = false;
          code = 'QUOTA_EXCEEDED';
          delayMs = 0;
          retryAfterMs = cost > quota.limit ? Infinity : endMs - now;
          neverFits = cost > quota.limit;
        }
      }
      quotaOutcome = { limit: quota.limit, remaining: remaining < 0 ? 0 : remaining, resetAt: endMs };
    }

    if (allowed) {
      for (let i = 0; i < n; i++) {
        const d = decisions[i];
        this.write(keys[i], d.state as LimitState, now + d.ttlMs);
      }
      if (quotaNext !== undefined) this.write(quotaKey, quotaNext, now + quotaTtl);
    } else {
      delayMs = 0;
      // Nothing was charged, so limits that would have admitted report their uncharged room
      // (a shaped one conservatively 0, as a unit request would queue too).
      for (let i = 0; i < n; i++) {
        const outcome = limits[i];
        if (outcome.allowed) outcome.remaining = outcome.delayMs > 0 ? 0 : outcome.remaining + cost;
      }
    }
    const result: CheckResult = { allowed, code, limits, retryAfterMs, neverFits, delayMs, nowMs: now };
    if (quotaOutcome !== undefined) result.quota = quotaOutcome;
    return result;
  }

  private read(key: string, now: number): LimitState | QuotaState | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.state;
  }

  private write(key: string, state: LimitState | QuotaState, expiresAt: number): void {
    const entries = this.entries;
    const entry = entries.get(key);
    if (entry !== undefined) {
      // Re-inserting moves the key to the young end of the Map's order: that is the LRU.
      entries.delete(key);
      entry.state = state;
      entry.expiresAt = expiresAt;
      entries.set(key, entry);
      return;
    }
    entries.set(key, { state, expiresAt });
    if (entries.size > this.maxEntries) {
      const oldest = entries.keys().next().value;
      if (oldest !== undefined) entries.delete(oldest);
    }
  }
}
