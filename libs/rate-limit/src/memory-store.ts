import { deciderFor, type Decider, type LimitState } from './decide-limit';
import { InvalidLimitParamsError } from './errors';
import { quotaPeriod } from './quota-period';
import { resolveLimitParams } from './resolve-limit-params';
import type { CheckRequest, CheckResult, Decision, LimitCheck, LimitOutcome, LimitParams, QuotaCheck, RateLimitStore } from './types';
import { validateCost, validateIdentity, validateQuotaCheck } from './validate-limit-params';

interface QuotaState {
  startMs: number;
  count: number;
}

interface Entry {
  state: LimitState | QuotaState;
  /** Lazy expiry: an entry read at or after this instant counts as absent. */
  expiresAt: number;
  /** The store's insertion counter when this entry last went to the young end of the Map. */
  seq: number;
  /** Set when the entry leaves the Map (expired, evicted, deleted), so cached references drop it. */
  dead: boolean;
}

export interface MemoryStoreOptions {
  /** Bound on stored counters (limit states + quotas); the least recently used is evicted. Default 100 000. */
  maxEntries?: number;
  /** Clock in epoch ms; default Date.now. */
  clock?: () => number;
}

/** A LimitCheck's validated params and map key, built once per object and store (see compile). */
interface CompiledLimit {
  identity: string;
  name: string;
  input: LimitCheck['params'];
  params: LimitParams;
  key: string;
  /** The entry last found or stored under `key` (unless dead): saves the Map lookup. */
  entry: Entry | undefined;
  /** The algorithm's function, resolved once (no dispatch per request). */
  decide: Decider;
  /** Overwrites a stored state with its successor in place; undefined for sliding_log. */
  overwrite: Overwrite | undefined;
}

/**
 * Writes `next`'s fields into `stored`. A flat state (numbers only) thus stays one object for its
 * entry's life: an admitted decision rewrites it instead of storing the new object the pure
 * function built, which then dies young. Storing that object left one state per decision to be
 * copied and promoted by the garbage collector, which was most of the store path's cost. Safe
 * because an entry's state object is the store's own: nothing outside the store ever sees it, and
 * the pure functions only read it (they build a new state, or hand the same one back). Sliding
 * logs are replaced, never rewritten: their arrays are shared copy-on-write between states.
 */
type Overwrite = (stored: LimitState, next: LimitState) => void;

const overwriteFlat: Overwrite = (stored, next) => {
  Object.assign(stored, next);
};

/** A QuotaCheck validated once per object, its map key, and the last period computed for it. */
interface CompiledQuota {
  identity: string;
  limit: number;
  period: QuotaCheck['period'];
  resetDay: number | undefined;
  checked: Required<QuotaCheck>;
  key: string;
  startMs: number;
  endMs: number;
}

// Callers reuse LimitCheck and QuotaCheck objects (from a cached key entry), so validating them
// and building the map key once per object, not per request, is most of the store's speed: one
// WeakMap lookup per limit (which also yields the entry itself, see CompiledLimit.entry). Keyed on
// the object and checked against its fields, so a mutated check is not served a stale entry (as
// RedisStore's compile() does).
const compiledQuotas = new WeakMap<QuotaCheck, CompiledQuota>();

/** The quota's validated form and its current period, recomputed only when `now` leaves it. */
function compileQuota(quota: QuotaCheck, now: number): CompiledQuota {
  let c = compiledQuotas.get(quota);
  if (c === undefined || c.identity !== quota.identity || c.limit !== quota.limit || c.period !== quota.period || c.resetDay !== quota.resetDay) {
    const checked = validateQuotaCheck(quota);
    c = { identity: quota.identity, limit: quota.limit, period: quota.period, resetDay: quota.resetDay, checked, key: `${checked.identity}\u0000quota`, startMs: 1, endMs: 0 };
    compiledQuotas.set(quota, c);
  }
  if (now < c.startMs || now >= c.endMs) {
    const { startMs, endMs } = quotaPeriod(now, c.checked.period, c.checked.resetDay);
    c.startMs = startMs;
    c.endMs = endMs;
  }
  return c;
}

const MAX_MS = Number.MAX_SAFE_INTEGER;

/** Durations capped as the Redis store must cap them (its integer replies are exact only up to 2^53). */
function outcomeOf(name: string, limit: number, d: Decision<LimitState | undefined>): LimitOutcome {
  return {
    name,
    limit,
    allowed: d.allowed,
    remaining: d.remaining,
    resetMs: d.resetMs > MAX_MS ? MAX_MS : d.resetMs,
    retryAfterMs: d.retryAfterMs > MAX_MS && d.retryAfterMs !== Infinity ? MAX_MS : d.retryAfterMs,
    delayMs: d.delayMs > MAX_MS ? MAX_MS : d.delayMs,
    neverFits: d.neverFits,
  };
}

/**
 * In-process store: the same decisions as RedisStore on the same clock, for tests, single
 * instances and failMode "local". Bounded LRU over a Map's insertion order, expiry checked on
 * read: no timers at all. Metering is ignored here (usage lives in Redis).
 *
 * LRU: every use of an entry (a charge, or a rejection it caused) counts. To keep the hot path to
 * one Map lookup, a used entry is moved to the young end only once it has drifted into the older
 * half (maxEntries / 2 insertions since its last move); so an entry used at least once per
 * maxEntries / 2 insertions is never evicted, and a blocked identity that keeps knocking stays
 * blocked (it is not evicted and re-admitted from fresh state).
 */
export class MemoryStore implements RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  private readonly compiled = new WeakMap<LimitCheck, CompiledLimit>();
  private readonly maxEntries: number;
  private readonly promoteAfter: number;
  private readonly clock: () => number;
  /** Counts insertions at the young end of `entries` (new entries and moves). */
  private seq = 0;

  constructor(opts: MemoryStoreOptions = {}) {
    const maxEntries = opts.maxEntries ?? 100_000;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new InvalidLimitParamsError('maxEntries', 'must be a positive integer');
    this.maxEntries = maxEntries;
    this.promoteAfter = maxEntries >> 1;
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
    if (checks.length === 1 && req.quota === undefined) return this.checkOne(checks[0], cost, now);
    return this.checkMany(checks, cost, req.quota, now);
  }

  /**
   * One limit, no quota (the common in-process case): no per-call arrays but the result's own, and
   * on an identity already stored nothing allocated outlives the call but the result (see
   * overwriteFlat). An entry found expired decides as no state (lazy expiry); it is then deleted, or,
   * if the decision stores a state, rewritten in place: the same decision and state as deleting it
   * and inserting a new entry, without the Map churn. For the LRU that counts as a use, as on a
   * live entry.
   */
  private checkOne(check: LimitCheck, cost: number, now: number): CheckResult {
    const c = this.compile(check);
    let entry = c.entry;
    if (entry === undefined || entry.dead) c.entry = entry = this.entries.get(c.key);
    const live = entry !== undefined && entry.expiresAt > now;
    const d = c.decide(live ? (entry!.state as LimitState) : undefined, now, c.params, cost);
    const outcome = outcomeOf(c.name, c.params.limit, d);
    const next = d.state;
    if (d.allowed) {
      if (next === undefined || d.ttlMs <= 0) {
        if (entry !== undefined) this.remove(c.key, entry);
      } else if (entry === undefined) {
        c.entry = this.insert(c.key, next, d.ttlMs, now);
      } else {
        if (c.overwrite !== undefined) c.overwrite(entry.state as LimitState, next);
        else entry.state = next;
        entry.expiresAt = now + d.ttlMs;
        if (this.seq - entry.seq >= this.promoteAfter) this.promote(c.key, entry);
      }
      return { allowed: true, code: 'VALID', limits: [outcome], retryAfterMs: 0, neverFits: false, delayMs: outcome.delayMs, nowMs: now };
    }
    if (entry !== undefined) {
      if (!live) this.remove(c.key, entry);
      else if (this.seq - entry.seq >= this.promoteAfter) this.promote(c.key, entry);
    }
    return { allowed: false, code: 'RATE_LIMITED', limits: [outcome], retryAfterMs: outcome.retryAfterMs, neverFits: d.neverFits, delayMs: 0, nowMs: now };
  }

  private checkMany(checks: readonly LimitCheck[], cost: number, quota: QuotaCheck | undefined, now: number): CheckResult {
    const n = checks.length;
    const compiled: CompiledLimit[] = new Array(n);
    const found: (Entry | undefined)[] = new Array(n);
    const decisions: Decision<LimitState | undefined>[] = new Array(n);
    const limits: LimitOutcome[] = new Array(n);
    let allowed = true;
    let neverFits = false;
    let retryAfterMs = 0;
    let delayMs = 0;
    for (let i = 0; i < n; i++) {
      const c = this.compile(checks[i]);
      const entry = this.liveFor(c, now);
      const d = c.decide(entry === undefined ? undefined : (entry.state as LimitState), now, c.params, cost);
      const outcome = outcomeOf(c.name, c.params.limit, d);
      compiled[i] = c;
      found[i] = entry;
      decisions[i] = d;
      limits[i] = outcome;
      if (!d.allowed) {
        allowed = false;
        if (d.neverFits) neverFits = true;
        if (outcome.retryAfterMs > retryAfterMs) retryAfterMs = outcome.retryAfterMs;
      } else if (outcome.delayMs > delayMs) {
        delayMs = outcome.delayMs;
      }
    }

    let code: CheckResult['code'] = allowed ? 'VALID' : 'RATE_LIMITED';
    let quotaOutcome: CheckResult['quota'];
    let q: CompiledQuota | undefined;
    let quotaEntry: Entry | undefined;
    let quotaNext: QuotaState | undefined;
    if (quota !== undefined) {
      q = compileQuota(quota, now);
      const limit = q.checked.limit;
      quotaEntry = this.live(q.key, now);
      const stored = quotaEntry === undefined ? undefined : (quotaEntry.state as QuotaState);
      const used = stored !== undefined && stored.startMs === q.startMs ? stored.count : 0;
      let remaining = limit - used;
      if (allowed) {
        if (used + cost <= limit) {
          quotaNext = { startMs: q.startMs, count: used + cost };
          remaining -= cost;
        } else {
          allowed = false;
          code = 'QUOTA_EXCEEDED';
          delayMs = 0;
          neverFits = cost > limit;
          retryAfterMs = neverFits ? Infinity : q.endMs - now;
        }
      }
      quotaOutcome = { limit, remaining: remaining < 0 ? 0 : remaining, resetAt: q.endMs };
    }

    if (allowed) {
      // Entries already stored first, new ones after: an insertion may evict, and it must not
      // evict an entry this request is about to update.
      for (let i = 0; i < n; i++) {
        const entry = found[i];
        if (entry !== undefined) this.update(compiled[i].key, entry, decisions[i].state, decisions[i].ttlMs, now);
      }
      if (quotaNext !== undefined && quotaEntry !== undefined) this.update(q!.key, quotaEntry, quotaNext, q!.endMs - now, now);
      for (let i = 0; i < n; i++) {
        if (found[i] === undefined) compiled[i].entry = this.insert(compiled[i].key, decisions[i].state, decisions[i].ttlMs, now, true);
      }
      if (quotaNext !== undefined && quotaEntry === undefined) this.insert(q!.key, quotaNext, q!.endMs - now, now, true);
    } else {
      delayMs = 0;
      // Nothing was charged, so limits that would have admitted report their uncharged room
      // (a shaped one conservatively 0, as a unit request would queue too). What rejected the
      // request counts as used, so a blocked identity is not the first to be evicted.
      for (let i = 0; i < n; i++) {
        const outcome = limits[i];
        if (outcome.allowed) outcome.remaining = outcome.delayMs > 0 ? 0 : outcome.remaining + cost;
        else if (found[i] !== undefined) this.touch(compiled[i].key, found[i]!);
      }
      if (code === 'QUOTA_EXCEEDED' && quotaEntry !== undefined) this.touch(q!.key, quotaEntry);
    }
    const result: CheckResult = { allowed, code, limits, retryAfterMs, neverFits, delayMs, nowMs: now };
    if (quotaOutcome !== undefined) result.quota = quotaOutcome;
    return result;
  }

  private compile(check: LimitCheck): CompiledLimit {
    const cached = this.compiled.get(check);
    if (cached !== undefined && cached.input === check.params && cached.identity === check.identity && cached.name === check.name) return cached;
    const params = resolveLimitParams(check.params);
    validateIdentity('identity', check.identity);
    const c: CompiledLimit = {
      identity: check.identity,
      name: check.name,
      input: check.params,
      params,
      key: `${check.identity}\u0000${check.name}\u0000${params.algorithm}`,
      entry: undefined,
      decide: deciderFor(params.algorithm),
      overwrite: params.algorithm === 'sliding_log' ? undefined : overwriteFlat,
    };
    this.compiled.set(check, c);
    return c;
  }

  /** The limit's live entry: the cached one unless it left the Map, else a Map lookup. */
  private liveFor(c: CompiledLimit, now: number): Entry | undefined {
    let entry = c.entry;
    if (entry === undefined || entry.dead) {
      entry = this.entries.get(c.key);
      c.entry = entry;
      if (entry === undefined) return undefined;
    }
    if (entry.expiresAt <= now) {
      this.remove(c.key, entry);
      c.entry = undefined;
      return undefined;
    }
    return entry;
  }

  /** The entry under key unless it has expired (then it is deleted: lazy expiry). */
  private live(key: string, now: number): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= now) {
      this.remove(key, entry);
      return undefined;
    }
    return entry;
  }

  private remove(key: string, entry: Entry): void {
    entry.dead = true;
    this.entries.delete(key);
  }

  /** A new state for a stored entry; a state with no lifetime left (ttl <= 0) is deleted instead. */
  private update(key: string, entry: Entry, state: LimitState | QuotaState | undefined, ttlMs: number, now: number): void {
    if (state === undefined || ttlMs <= 0) {
      this.remove(key, entry);
      return;
    }
    entry.state = state;
    entry.expiresAt = now + ttlMs;
    this.touch(key, entry);
  }

  /** Stores a new entry at the young end, evicting the oldest past maxEntries; a dead state is not stored. */
  private insert(key: string, state: LimitState | QuotaState | undefined, ttlMs: number, now: number, mayExist = false): Entry | undefined {
    if (state === undefined || ttlMs <= 0) return undefined;
    const entries = this.entries;
    if (mayExist) {
      // A request naming one limit twice: the first insert is replaced, and must read as gone.
      const prev = entries.get(key);
      if (prev !== undefined) this.remove(key, prev);
    }
    const entry: Entry = { state, expiresAt: now + ttlMs, seq: ++this.seq, dead: false };
    entries.set(key, entry);
    if (entries.size > this.maxEntries) {
      const oldest = entries.entries().next().value;
      if (oldest !== undefined) this.remove(oldest[0], oldest[1]);
    }
    return entry;
  }

  /** Marks an entry used: moves it to the young end once it has drifted into the older half. */
  private touch(key: string, entry: Entry): void {
    if (this.seq - entry.seq >= this.promoteAfter) this.promote(key, entry);
  }

  /** Moves an entry to the young end of the Map. */
  private promote(key: string, entry: Entry): void {
    const entries = this.entries;
    entries.delete(key);
    entry.seq = ++this.seq;
    entries.set(key, entry);
  }
}
