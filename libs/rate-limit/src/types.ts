/** The six limit algorithms of the public contract ("Limit semantics"). */
export type Algorithm = 'token_bucket' | 'leaky_bucket' | 'fixed_window' | 'sliding_log' | 'sliding_window' | 'gcra';

/** One limit's numbers as the contract states them; `burst` and `shaping` are optional there. */
export interface LimitParamsInput {
  algorithm: Algorithm;
  limit: number;
  windowMs: number;
  burst?: number;
  shaping?: boolean;
}

/** Validated params with the per-algorithm default of `burst` filled in (see validateLimitParams). */
export interface LimitParams {
  readonly algorithm: Algorithm;
  readonly limit: number;
  readonly windowMs: number;
  readonly burst: number;
  readonly shaping: boolean;
}

/**
 * What one algorithm decides for one request. `state` is what to store if the request is
 * committed; on a rejection it is the input state, unchanged.
 */
export interface Decision<S> {
  allowed: boolean;
  state: S;
  /** How many more unit-cost requests would pass now (after this one, if it was allowed). */
  remaining: number;
  /** Ms until the limit is fully reset (per algorithm, see docs/engine.md). */
  resetMs: number;
  /** Ms until this cost would pass (0 if allowed); Infinity when it can never fit. */
  retryAfterMs: number;
  /** Ms the caller must wait before proceeding (leaky bucket in shaping mode only). */
  delayMs: number;
  /** True when cost exceeds what the limit can ever admit at once. */
  neverFits: boolean;
  /** Ms after which the stored state decides exactly like no state at all (store TTL). */
  ttlMs: number;
}

export interface LimitCheck {
  /** Limit name, unique per identity within one request (it is part of the state key). */
  name: string;
  /** Counter identity, e.g. `key:<keyId>`, `owner:<ownerId>`, `plan:<planId>`; the Redis hash tag. */
  identity: string;
  params: LimitParamsInput | LimitParams;
}

export type QuotaPeriod = 'day' | 'month';

export interface QuotaCheck {
  identity: string;
  limit: number;
  period: QuotaPeriod;
  /** Month only: the day of month (1..28) the period starts on, 00:00 UTC. Default 1. */
  resetDay?: number;
}

export interface MeterTarget {
  /** Bucket keys are `<store prefix><keyPrefix><minuteStartMs>`; the index is `<store prefix><keyPrefix>buckets`. */
  keyPrefix: string;
  /** Hash field is `<member>|<outcome>`. */
  member: string;
}

export interface CheckRequest {
  limits: readonly LimitCheck[];
  /** Integer 0..1e9, default 1. */
  cost?: number;
  quota?: QuotaCheck;
  meter?: MeterTarget;
  /** Only for stores built with a test clock (RedisStore `testClock: true`, or MemoryStore). */
  nowMs?: number;
}

export type CheckCode = 'VALID' | 'RATE_LIMITED' | 'QUOTA_EXCEEDED';

export interface LimitOutcome {
  name: string;
  limit: number;
  /** Whether this limit alone admits the request (it is charged only if the whole request passes). */
  allowed: boolean;
  remaining: number;
  resetMs: number;
  retryAfterMs: number;
  delayMs: number;
  neverFits: boolean;
}

export interface QuotaOutcome {
  limit: number;
  remaining: number;
  /** Epoch ms at which the current period ends. */
  resetAt: number;
}

export interface CheckResult {
  allowed: boolean;
  code: CheckCode;
  limits: LimitOutcome[];
  quota?: QuotaOutcome;
  /** 0 if allowed; the max over blocking limits, or until the quota period ends; Infinity if neverFits. */
  retryAfterMs: number;
  /** True when a blocking limit (or the quota) can never admit this cost. */
  neverFits: boolean;
  /** Shaping: the max delay over all limits; the caller sleeps this long before proceeding. */
  delayMs: number;
  /** The store's clock for this decision (Redis TIME on the Redis store). */
  nowMs: number;
}

export interface RateLimitStore {
  check(req: CheckRequest): Promise<CheckResult>;
}

/** Meter outcomes, as hash fields `<member>|<outcome>`. */
export type MeterOutcome = 'valid' | 'rateLimited' | 'quotaExceeded' | 'invalid';
