import { hash, randomUUID } from 'node:crypto';
import {
  InvalidLimitParamsError,
  MemoryStore,
  quotaPeriod,
  RedisStore,
  validateCost,
  type CheckRequest,
  type CheckResult,
  type LimitCheck,
  type MeterOutcome,
  type MeterTarget,
  type QuotaCheck,
  type RateLimitStore,
} from '@tollgate/rate-limit';
import { BlockedKeys } from './blocked-keys';
import { invalidationChannel, InvalidationSubscriber, publishInvalidation, type InvalidationMessage } from './invalidation';
import { KeyCache, type KeyCacheStats } from './key-cache';
import type { GuardLimit, KeyLookup, KeyRecord, PolicyItem, VerificationResult, VerifiedLimit } from './key-record';
import { createGuardRedis, waitForReady, type GuardRedisClient } from './redis-client';
import { Deadlines } from './deadlines';
import { CircuitBreaker, type BreakerState } from './store-breaker';

export interface GuardLogger {
  warn(message: string): void;
}

export interface KeyVerifierOptions {
  /** A connection (the verifier duplicates it for pub/sub) or a URL (the verifier owns both connections). */
  redis?: GuardRedisClient | string;
  /** Instead of Redis: decide with this store (e.g. a MemoryStore for a single instance). No live invalidation then. */
  store?: RateLimitStore;
  /** Redis key and channel prefix, default `tg:`. */
  prefix?: string;
  lookup: KeyLookup;
  /** Cached known keys (LRU), default 10 000. Also bounds the blocked-key shortcut's table. */
  cacheSize?: number;
  /** Cached unknown secrets, a separate LRU that never evicts known keys; default cacheSize / 10. */
  negativeCacheSize?: number;
  /** How long an unknown secret is remembered as unknown, default 30 000 ms. */
  negativeCacheTtlMs?: number;
  /** Age after which a cached key is re-validated in the background, default 300 000 ms. */
  cacheMaxAgeMs?: number;
  /** Deadline of one store call, default 50 ms: a slower answer is a store failure (failMode applies). */
  storeTimeoutMs?: number;
  /**
   * Opt-in, beyond the contract's strict deadline: while Redis keeps answering other calls
   * (draining a burst), a call may wait past storeTimeoutMs, up to this long in all. Default
   * storeTimeoutMs (no extension).
   */
  storeMaxWaitMs?: number;
  /**
   * At most this many requests share one EVALSHA, default 32: the requests of one event-loop turn
   * go to Redis together when the turn ends (RedisStore's `maxBatch`). 1: one EVALSHA per request.
   */
  storeMaxBatch?: number;
  /** Consecutive store failures that open the breaker, default 5. */
  breakerFailureThreshold?: number;
  /** How long the breaker stays open before a probe, default 1000 ms. */
  breakerOpenMs?: number;
  /** Counters of the in-process store used by failMode "local", default 100 000. */
  localStoreMaxEntries?: number;
  /** Subscribe to `<prefix>invalidate` (default true when a Redis connection is given). */
  liveInvalidation?: boolean;
  logger?: GuardLogger;
  /** Local clock (expiry, blocked-key shortcut, cache ages, breaker), default Date.now. */
  clock?: () => number;
  /**
   * Called with every decision, synchronously, after it is made (e.g. to raise quota or rate-limit
   * events). Must be cheap and must not throw; errors are logged and swallowed.
   */
  onDecision?: (result: VerificationResult) => void;
  /**
   * How often refusals taken by the blocked-key shortcut (no store call) are sent to the usage
   * buckets, in one call per key; default 1000 ms. Pending counts are also sent on close().
   */
  meterFlushMs?: number;
  /** Count every decision in the usage buckets (same round trip). Default true; off only to measure its cost. */
  metering?: boolean;
  /**
   * Advertised when no key is known (no key, unknown key, failed lookup), so those answers carry
   * rate-limit headers too (`r=0;t=0`): e.g. the limits of the default plan. Default none.
   */
  defaultPolicy?: readonly PolicyItem[];
}

export interface VerifyOptions {
  /** Cost of this request, integer 0..1e9, default 1. */
  cost?: number;
  /** Only these of the key's limits apply (unknown names are ignored); default all. The quota always applies. */
  limits?: readonly string[];
}

export interface VerifierCounters {
  /** Decisions taken without Redis under failMode open or local. */
  degradedDecisions: number;
  /** Store calls that failed or timed out. */
  storeFailures: number;
  /** Requests refused as STORE_UNAVAILABLE (failMode closed). */
  storeUnavailable: number;
  /** Requests refused by the local blocked-key shortcut, without a Redis call. */
  blockedShortcuts: number;
}

export interface VerifierHealth {
  store: 'up' | 'degraded';
  breaker: BreakerState;
  /** Whether cache invalidations are being received. */
  invalidation: 'live' | 'lost' | 'off';
}

/** The usage buckets every decision is counted in (see the engine's meter). */
export const USAGE_METER_PREFIX = 'usage:';

interface Selection {
  checks: LimitCheck[];
  windows: number[];
  names: string[];
  policy: readonly PolicyItem[];
  /** `policy` plus the quota item, for the quota period it was built in. */
  withQuota?: { startMs: number; endMs: number; policy: readonly PolicyItem[] };
}

interface Base {
  keyId: string;
  ownerId: string | null;
  planId: string;
}

/** What the hot path needs of a cached key, built once per KeyRecord. */
interface Compiled {
  record: KeyRecord;
  base: Base;
  meter: MeterTarget;
  all: Selection;
  quota: QuotaCheck | undefined;
  /** Route selections by the decorator's metadata array (the same array on every request)... */
  byArray: WeakMap<readonly string[], Selection>;
  /** ...and by names, for callers that pass a fresh array each time. */
  byNames: Map<string, Selection>;
}

const compiledByRecord = new WeakMap<KeyRecord, Compiled>();

/** checkStore's answer when the breaker refuses the call. */
const NO_ANSWER: Promise<undefined> = Promise.resolve(undefined);

/** One-shot `crypto.hash` (Node >= 20.12; we require 20.19): about a third of createHash's cost per key. */
export function sha256Hex(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/**
 * Verifies a presented secret: cached key lookup, local NOT_FOUND/DISABLED/EXPIRED, then one
 * store call that decides every limit and the quota atomically and meters the outcome. Redis
 * trouble (error, 50 ms timeout, open breaker) is answered per the key's failMode.
 * Framework-free: the Nest guard and the API's verify endpoint both use it.
 */
export class KeyVerifier {
  readonly cache: KeyCache;
  readonly counters: VerifierCounters = { degradedDecisions: 0, storeFailures: 0, storeUnavailable: 0, blockedShortcuts: 0 };
  readonly prefix: string;
  /** This verifier's id in the invalidations it broadcasts, so it skips their echo. */
  readonly origin = randomUUID();
  readonly defaultPolicy: readonly PolicyItem[] | undefined;
  private readonly store: RateLimitStore;
  private readonly localStore: MemoryStore;
  private readonly blocked: BlockedKeys;
  private readonly breaker: CircuitBreaker;
  /** One timer for all in-flight store calls, not one per request. */
  private readonly deadlines: Deadlines;
  private readonly clock: () => number;
  private readonly logger: GuardLogger | undefined;
  private readonly onDecision: ((result: VerificationResult) => void) | undefined;
  private readonly metering: boolean;
  /** Shortcut refusals not yet sent to the usage buckets, per key id. */
  private readonly pendingRefusals = new Map<string, number>();
  private readonly meterFlushMs: number;
  private meterFlushTimer: NodeJS.Timeout | undefined;
  private readonly client: GuardRedisClient | undefined;
  private readonly ownsClient: boolean;
  private readonly subscriber: InvalidationSubscriber | undefined;
  private started = false;

  constructor(opts: KeyVerifierOptions) {
    this.prefix = opts.prefix ?? 'tg:';
    this.clock = opts.clock ?? Date.now;
    this.logger = opts.logger;
    this.onDecision = opts.onDecision;
    this.metering = opts.metering ?? true;
    this.meterFlushMs = opts.meterFlushMs ?? 1000;
    this.defaultPolicy = opts.defaultPolicy !== undefined && opts.defaultPolicy.length > 0 ? opts.defaultPolicy.map((item) => ({ ...item })) : undefined;
    const storeTimeoutMs = opts.storeTimeoutMs ?? 50;
    this.deadlines = new Deadlines(storeTimeoutMs, opts.storeMaxWaitMs ?? storeTimeoutMs);
    this.cache = new KeyCache(opts.lookup, {
      maxEntries: opts.cacheSize,
      negativeMaxEntries: opts.negativeCacheSize,
      negativeTtlMs: opts.negativeCacheTtlMs,
      maxAgeMs: opts.cacheMaxAgeMs,
      clock: this.clock,
      onRefreshError: (err) => this.logger?.warn(`tollgate: background key reload failed: ${describe(err)}`),
    });
    this.blocked = new BlockedKeys(opts.cacheSize ?? 10_000, this.clock);
    this.localStore = new MemoryStore({ maxEntries: opts.localStoreMaxEntries, clock: this.clock });
    this.breaker = new CircuitBreaker({
      failureThreshold: opts.breakerFailureThreshold,
      openMs: opts.breakerOpenMs,
      clock: this.clock,
      onChange: (state) =>
        this.logger?.warn(state === 'open' ? 'tollgate: rate-limit store unreachable, breaker open (fail modes apply)' : 'tollgate: rate-limit store back, breaker closed'),
    });
    if (opts.store !== undefined) {
      this.store = opts.store;
      this.ownsClient = false;
      this.client = typeof opts.redis === 'object' ? opts.redis : undefined;
    } else if (opts.redis !== undefined) {
      const client: GuardRedisClient = typeof opts.redis === 'string' ? createGuardRedis(opts.redis) : opts.redis;
      this.ownsClient = typeof opts.redis === 'string';
      this.client = client;
      this.store = new RedisStore(client, { prefix: this.prefix, maxBatch: opts.storeMaxBatch });
    } else {
      throw new TypeError('KeyVerifier needs `redis` (a connection or URL) or a `store`');
    }
    if (this.client !== undefined && opts.liveInvalidation !== false) {
      // No ioredis auto-resubscribe: InvalidationSubscriber subscribes again on every `ready` itself,
      // and ioredis' own SUBSCRIBE after a reconnect has no rejection handler, so a connection lost
      // again before its reply was an unhandled rejection (which ends a Node process by default).
      const connection = this.client.duplicate({ autoResubscribe: false });
      connection.on('error', () => undefined);
      this.subscriber = new InvalidationSubscriber(connection, invalidationChannel(this.prefix), {
        // Our own broadcasts were applied here when sent: their echo would only drop the cache again.
        onMessage: (message) => {
          if (message.origin !== this.origin) this.invalidate(message);
        },
        // Messages sent while we were disconnected are lost: forget everything instead.
        onSubscribed: () => this.invalidate({ kind: 'all' }),
        onError: (err) => this.logger?.warn(`tollgate: invalidation subscribe failed: ${describe(err)}`),
      });
    }
  }

  /** Subscribes to invalidations and waits (at most `readyTimeoutMs`) for the connection; never throws for a down Redis. */
  async start(readyTimeoutMs = 2000): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.subscriber?.start();
    if (this.client !== undefined) await waitForReady(this.client, readyTimeoutMs);
  }

  async close(): Promise<void> {
    clearInterval(this.meterFlushTimer);
    this.meterFlushTimer = undefined;
    await this.flushMeter();
    await this.subscriber?.close();
    if (this.ownsClient && this.client !== undefined) {
      try {
        await this.client.quit();
      } catch {
        this.client.disconnect();
      }
    }
  }

  /** Nest lifecycle hook, so a verifier provided by the module closes with the app. */
  async onModuleDestroy(): Promise<void> {
    await this.close();
  }

  health(): VerifierHealth {
    const breaker = this.breaker.state;
    return {
      store: breaker === 'closed' ? 'up' : 'degraded',
      breaker,
      invalidation: this.subscriber === undefined ? 'off' : this.subscriber.live ? 'live' : 'lost',
    };
  }

  /**
   * health(), after checking the store if the breaker is due for a probe (half-open): one PING
   * through the breaker and the deadline, whose success closes it. The breaker otherwise changes
   * only with traffic, so an idle instance would report "degraded" long after Redis is back.
   * Never throws; a closed breaker or one still cooling down sends nothing.
   */
  async probe(): Promise<VerifierHealth> {
    const client = this.client;
    if (client !== undefined && this.breaker.state === 'half-open' && this.breaker.tryAcquire()) {
      try {
        await this.deadlines.run(client.ping());
        this.breaker.success();
      } catch {
        this.breaker.failure();
        this.counters.storeFailures++;
      }
    }
    return this.health();
  }

  cacheStats(): KeyCacheStats {
    return this.cache.stats();
  }

  /** Drops cached keys and local blocks; what the pub/sub subscriber calls for each message. */
  invalidate(message: InvalidationMessage): void {
    if (message.kind === 'key') {
      this.cache.invalidateKey(message.id);
      this.blocked.forgetKey(message.id);
    } else if (message.kind === 'plan') {
      this.cache.invalidatePlan(message.id);
      this.blocked.forgetPlan(message.id);
    } else {
      this.cache.clear();
      this.blocked.clear();
    }
  }

  /**
   * Applies an invalidation here at once and publishes it to every other instance (tagged with
   * this verifier's origin, so its own echo is skipped). Call after the change is committed.
   * Rejects when Redis is unreachable.
   */
  async broadcastInvalidation(message: InvalidationMessage): Promise<number> {
    this.invalidate(message);
    if (this.client === undefined) return 0;
    return publishInvalidation(this.client, this.prefix, { ...message, origin: this.origin });
  }

  verify(secret: string, opts: VerifyOptions = {}): Promise<VerificationResult> {
    const decided = this.decide(secret, opts);
    const onDecision = this.onDecision;
    if (onDecision === undefined) return decided;
    return decided.then((result) => {
      try {
        onDecision(result);
      } catch (err) {
        this.logger?.warn(`onDecision listener failed: ${(err as Error).message}`);
      }
      return result;
    });
  }

  /**
   * Synchronous up to the store call, then one continuation: not an async function, whose
   * suspended frame (every local of this long function, about 0.8 kB) would be allocated on each
   * request that awaits the store. Errors still arrive as rejections, as from an async function.
   */
  private decide(secret: string, opts: VerifyOptions): Promise<VerificationResult> {
    try {
      const cost = validateCost(opts.cost);
      const secretHash = sha256Hex(secret);
      // A cached key (the usual case) is read without awaiting anything: one microtask less per request.
      const cached = this.cache.peek(secretHash);
      if (cached !== undefined) return this.decideFor(cached, cost, opts.limits);
      return this.cache.get(secretHash).then((record) => this.decideFor(record, cost, opts.limits));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** decide() once the key is known (null: no such key). */
  private decideFor(record: KeyRecord | null, cost: number, names: readonly string[] | undefined): Promise<VerificationResult> {
    try {
      const now = this.clock();
      if (record === null) {
        this.meterOutcome('-', 'invalid');
        const unknown: VerificationResult = { valid: false, code: 'NOT_FOUND', limits: [], nowMs: now };
        if (this.defaultPolicy !== undefined) unknown.policy = this.defaultPolicy;
        return Promise.resolve(unknown);
      }
      const compiled = compile(record);
      const selection = select(compiled, names);
      const policy = policyFor(selection, compiled, now);
      const base = compiled.base;
      if (!record.enabled || (record.expiresAt !== null && record.expiresAt <= now)) {
        this.meterOutcome(record.id, 'invalid');
        return Promise.resolve({ valid: false, code: record.enabled ? 'EXPIRED' : 'DISABLED', ...base, limits: [], policy, nowMs: now });
      }
      if (selection.checks.length === 0 && compiled.quota === undefined) {
        return Promise.resolve({ valid: true, code: 'VALID', ...base, limits: [], policy, nowMs: now });
      }

      const blocked = this.blocked.match(record.id, cost, selection.names);
      if (blocked !== undefined) {
        this.counters.blockedShortcuts++;
        // Decided here without a store call; counted here, sent in batches: usage totals stay exact.
        this.countRefusal(record.id);
        const limits: VerifiedLimit[] = blocked.limits.map((b) => {
          const i = selection.names.indexOf(b.name);
          return { name: b.name, limit: selection.checks[i].params.limit, windowMs: selection.windows[i], remaining: 0, resetMs: b.resetMs, blocked: true, retryAfterMs: b.retryAfterMs };
        });
        return Promise.resolve({ valid: false, code: 'RATE_LIMITED', ...base, limits, policy, retryAfterMs: blocked.retryAfterMs, nowMs: now });
      }

      const request: CheckRequest = { limits: selection.checks, cost, quota: compiled.quota, meter: this.metering ? compiled.meter : undefined };
      return this.checkStore(request).then((result) => this.decided(result, record, cost, selection, compiled, policy, now));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** The store's answer made a verification, or (undefined: the store failed) the key's failMode's. */
  private decided(
    result: CheckResult | undefined,
    record: KeyRecord,
    cost: number,
    selection: Selection,
    compiled: Compiled,
    policy: readonly PolicyItem[],
    now: number,
  ): VerificationResult {
    const base = compiled.base;
    if (result !== undefined) {
      const verification = toVerification(result, selection, base, policy);
      // Sent at `now`, answered now: the block ends by the first, its Retry-After counts from the second.
      if (result.code === 'RATE_LIMITED') this.blocked.remember(record.id, record.planId, cost, verification.limits, now, this.clock());
      return verification;
    }
    switch (record.failMode) {
      case 'open': {
        this.counters.degradedDecisions++;
        // Admitted whatever happens; the instance's own counters only give the headers real numbers.
        const local = this.localStore.checkSync({ limits: selection.checks, cost, quota: compiled.quota });
        const limits: VerifiedLimit[] = local.limits.map((outcome, i) => ({
          name: outcome.name,
          limit: outcome.limit,
          windowMs: selection.windows[i],
          remaining: outcome.remaining,
          resetMs: outcome.resetMs,
        }));
        const open: VerificationResult = { valid: true, code: 'VALID', ...base, limits, policy, degraded: true, nowMs: local.nowMs };
        if (local.quota !== undefined) open.quota = { limit: local.quota.limit, remaining: local.quota.remaining, resetAt: local.quota.resetAt };
        return open;
      }
      case 'local': {
        this.counters.degradedDecisions++;
        const local = this.localStore.checkSync({ limits: selection.checks, cost, quota: compiled.quota });
        return { ...toVerification(local, selection, base, policy), degraded: true };
      }
      default:
        this.counters.storeUnavailable++;
        return { valid: false, code: 'VALID', ...base, limits: [], policy, storeUnavailable: true, nowMs: now };
    }
  }

  /**
   * A key's limits and quota as they stand, for admins looking at it: one check of cost 0, which
   * charges nothing, counts no usage and goes to the store whatever the key's status (a disabled
   * key's counters still run down). Undefined when the store cannot answer (failMode does not
   * apply: there is no request to admit or refuse).
   */
  async inspect(record: KeyRecord): Promise<VerificationResult | undefined> {
    const compiled = compile(record);
    const selection = compiled.all;
    const now = this.clock();
    const policy = policyFor(selection, compiled, now);
    if (selection.checks.length === 0 && compiled.quota === undefined) return { valid: true, code: 'VALID', ...compiled.base, limits: [], policy, nowMs: now };
    const result = await this.checkStore({ limits: selection.checks, cost: 0, quota: compiled.quota });
    return result === undefined ? undefined : toVerification(result, selection, compiled.base, policy);
  }

  /**
   * The store's answer, or undefined when the store failed, timed out or the breaker is open. Not
   * async, with its two handlers made once: no suspended frame and no closures per call.
   */
  private checkStore(request: CheckRequest): Promise<CheckResult | undefined> {
    if (!this.breaker.tryAcquire()) return NO_ANSWER;
    return this.deadlines.run(this.store.check(request)).then(this.storeAnswered, this.storeFailed);
  }

  private readonly storeAnswered = (result: CheckResult): CheckResult => {
    this.breaker.success();
    return result;
  };

  private readonly storeFailed = (err: unknown): undefined => {
    if (err instanceof InvalidLimitParamsError) {
      // A bad limit in the key's configuration, not a store failure.
      this.breaker.release();
      throw err;
    }
    this.breaker.failure();
    this.counters.storeFailures++;
    return undefined;
  };

  private countRefusal(keyId: string): void {
    if (!this.metering || !(this.store instanceof RedisStore)) return;
    this.pendingRefusals.set(keyId, (this.pendingRefusals.get(keyId) ?? 0) + 1);
    if (this.meterFlushTimer === undefined) {
      this.meterFlushTimer = setInterval(() => void this.flushMeter(), this.meterFlushMs);
      this.meterFlushTimer.unref();
    }
  }

  /**
   * Sends the shortcut refusals counted so far to the usage buckets, one call per key. Counts that
   * cannot be sent (Redis away) stay pending for the next flush.
   */
  async flushMeter(): Promise<void> {
    const store = this.store;
    if (this.pendingRefusals.size === 0 || !(store instanceof RedisStore)) return;
    const batch = [...this.pendingRefusals];
    this.pendingRefusals.clear();
    await Promise.all(
      batch.map(([keyId, count]) =>
        store.recordOutcome({ keyPrefix: USAGE_METER_PREFIX, member: keyId }, 'rateLimited', undefined, count).catch(() => {
          this.pendingRefusals.set(keyId, (this.pendingRefusals.get(keyId) ?? 0) + count);
        }),
      ),
    );
  }

  /**
   * Counts an invalid key (decided without the store's check script) in the usage buckets; best
   * effort, never awaited by the caller.
   */
  private meterOutcome(member: string, outcome: MeterOutcome): void {
    const store = this.store;
    if (!this.metering || !(store instanceof RedisStore) || !this.breaker.tryAcquire()) return;
    this.deadlines.run(store.recordOutcome({ keyPrefix: USAGE_METER_PREFIX, member }, outcome)).then(
      () => this.breaker.success(),
      () => {
        this.breaker.failure();
        this.counters.storeFailures++;
      },
    );
  }
}

function toVerification(result: CheckResult, selection: Selection, base: Base, policy: readonly PolicyItem[]): VerificationResult {
  const limits: VerifiedLimit[] = result.limits.map((outcome, i) => {
    const item: VerifiedLimit = {
      name: outcome.name,
      limit: outcome.limit,
      windowMs: selection.windows[i],
      remaining: outcome.remaining,
      resetMs: outcome.resetMs,
    };
    if (!outcome.allowed) {
      item.blocked = true;
      if (!outcome.neverFits && Number.isFinite(outcome.retryAfterMs)) item.retryAfterMs = outcome.retryAfterMs;
    } else if (outcome.remaining === 0) {
      const roomMs = roomForOneMs(selection.checks[i].params, outcome.resetMs);
      if (roomMs < outcome.resetMs) item.roomMs = roomMs;
    }
    return item;
  });
  // Fields spelled out, not `...base`: this runs on every decision, and a spread copies generically.
  const out: VerificationResult = { valid: result.allowed, code: result.code, keyId: base.keyId, ownerId: base.ownerId, planId: base.planId, limits, policy, nowMs: result.nowMs };
  if (result.quota !== undefined) out.quota = { limit: result.quota.limit, remaining: result.quota.remaining, resetAt: result.quota.resetAt };
  if (!result.allowed) {
    if (Number.isFinite(result.retryAfterMs)) out.retryAfterMs = result.retryAfterMs;
    if (result.neverFits) out.neverFits = true;
  }
  if (result.allowed && result.delayMs > 0) out.delayMs = result.delayMs;
  return out;
}

/**
 * When a limit just left with no room has room for one unit again, at the latest. The continuously
 * refilling ones (token and leaky bucket, gcra) regain a unit within one emission interval
 * (windowMs / limit), often long before they are full again (resetMs). The windows and the log are
 * bounded by their reset, and a shaping bucket's delays make its room depend on the queue.
 */
function roomForOneMs(params: LimitCheck['params'], resetMs: number): number {
  const { algorithm, limit, windowMs } = params;
  const continuous = algorithm === 'token_bucket' || algorithm === 'gcra' || (algorithm === 'leaky_bucket' && params.shaping !== true);
  return continuous ? Math.min(resetMs, Math.ceil(windowMs / limit)) : resetMs;
}

/** Counter identity of a limit: per key, per owner (per key when ownerless) or per plan. */
export function limitIdentity(limit: GuardLimit, record: KeyRecord): string {
  if (limit.scope === 'global') return `plan:${tagSafe(record.planId)}`;
  if (limit.scope === 'owner' && record.ownerId !== null) return `owner:${tagSafe(record.ownerId)}`;
  return `key:${tagSafe(record.counterId ?? record.id)}`;
}

/**
 * An identity becomes a Redis hash tag (`{identity}`), so a brace inside it (an ownerId may hold
 * any text) would cut the tag short, and the store refuses it. Braces are percent-encoded, and `%`
 * too so that no two ids share an encoding. Ids without them (all of the API's) are unchanged.
 */
function tagSafe(id: string): string {
  return /[{}%]/.test(id) ? id.replace(/[{}%]/g, (c) => (c === '{' ? '%7B' : c === '}' ? '%7D' : '%25')) : id;
}

/** The store request parts of a key, built once per cached record. */
function compile(record: KeyRecord): Compiled {
  let compiled = compiledByRecord.get(record);
  if (compiled !== undefined) return compiled;
  const checks: LimitCheck[] = record.limits.map((limit) => ({
    name: limit.name,
    identity: limitIdentity(limit, record),
    params: { algorithm: limit.algorithm, limit: limit.limit, windowMs: limit.windowMs, burst: limit.burst, shaping: limit.shaping },
  }));
  const quota: QuotaCheck | undefined =
    record.quota === null ? undefined : { identity: `key:${tagSafe(record.counterId ?? record.id)}`, limit: record.quota.limit, period: record.quota.period, resetDay: record.quota.resetDay };
  compiled = {
    record,
    base: { keyId: record.id, ownerId: record.ownerId, planId: record.planId },
    meter: { keyPrefix: USAGE_METER_PREFIX, member: record.id },
    all: {
      checks,
      windows: record.limits.map((limit) => limit.windowMs),
      names: record.limits.map((limit) => limit.name),
      policy: record.limits.map((limit) => ({ name: limit.name, limit: limit.limit, windowMs: limit.windowMs })),
    },
    quota,
    byArray: new WeakMap(),
    byNames: new Map(),
  };
  compiledByRecord.set(record, compiled);
  return compiled;
}

/** The route's selection of the key's limits, built once per (record, selection). */
function select(compiled: Compiled, names: readonly string[] | undefined): Selection {
  if (names === undefined) return compiled.all;
  let selection = compiled.byArray.get(names);
  if (selection !== undefined) return selection;
  const cacheKey = names.join('\u0000');
  selection = compiled.byNames.get(cacheKey);
  if (selection === undefined) {
    const all = compiled.all;
    const indexes = all.names.flatMap((name, i) => (names.includes(name) ? [i] : []));
    selection = {
      checks: indexes.map((i) => all.checks[i]),
      windows: indexes.map((i) => all.windows[i]),
      names: indexes.map((i) => all.names[i]),
      policy: indexes.map((i) => all.policy[i]),
    };
    compiled.byNames.set(cacheKey, selection);
  }
  compiled.byArray.set(names, selection);
  return selection;
}

/**
 * The applied limits, then the quota as `quota` with its current calendar period as window. One
 * array per selection (and per quota period), so its RateLimit-Policy string is built once too.
 */
function policyFor(selection: Selection, compiled: Compiled, nowMs: number): readonly PolicyItem[] {
  const quota = compiled.record.quota;
  if (quota === null) return selection.policy;
  const cached = selection.withQuota;
  if (cached !== undefined && nowMs >= cached.startMs && nowMs < cached.endMs) return cached.policy;
  const { startMs, endMs } = quotaPeriod(nowMs, quota.period, quota.resetDay);
  const policy = [...selection.policy, { name: 'quota', limit: quota.limit, windowMs: endMs - startMs }];
  selection.withQuota = { startMs, endMs, policy };
  return policy;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
