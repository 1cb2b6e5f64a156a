import type { Algorithm } from '@tollgate/rate-limit';

/** One effective limit of a key (the plan's, overridden by the key's limit of the same name). */
export interface GuardLimit {
  name: string;
  algorithm: Algorithm;
  limit: number;
  windowMs: number;
  burst?: number;
  scope: 'key' | 'owner' | 'global';
  shaping?: boolean;
}

export interface GuardQuota {
  limit: number;
  period: 'day' | 'month';
  /** Month only: the day of month (1..28) the period starts on, 00:00 UTC. */
  resetDay: number;
}

export type FailMode = 'closed' | 'open' | 'local';

/** What the guard needs to know about a key; the host app loads it (e.g. from Postgres). */
export interface KeyRecord {
  id: string;
  /**
   * Whose per-key counters (scope "key" limits and the quota) this key uses; default `id`. A
   * rotated key's successor keeps its predecessor's, so rotating resets no limit and no quota,
   * and the old and new secrets share one budget during the grace period.
   */
  counterId?: string;
  ownerId: string | null;
  planId: string;
  enabled: boolean;
  /** Epoch ms; for a rotated key the end of the grace period. null: never expires. */
  expiresAt: number | null;
  /** Effective limits: the plan's, overridden by the key's. */
  limits: GuardLimit[];
  quota: GuardQuota | null;
  failMode: FailMode;
}

/** Loads a key by the SHA-256 hex of its presented secret; null when no such key exists. */
export type KeyLookup = (secretHash: string) => Promise<KeyRecord | null>;

export type VerificationCode = 'VALID' | 'NOT_FOUND' | 'DISABLED' | 'EXPIRED' | 'RATE_LIMITED' | 'QUOTA_EXCEEDED';

export interface VerifiedLimit {
  name: string;
  limit: number;
  windowMs: number;
  remaining: number;
  /** Ms until the limit is fully reset (the engine's resetMs). */
  resetMs: number;
  /** This limit refused the request (it may still have some room, just less than the cost). */
  blocked?: boolean;
  /** Only on a limit that blocked this request: ms until it admits this cost; absent when it never can. */
  retryAfterMs?: number;
  /**
   * Only on a limit that admitted this request and has no room left, when known to be sooner than
   * resetMs: ms by which it has room for one more unit again (an upper bound, never early).
   */
  roomMs?: number;
}

/** A limit as advertised in RateLimit-Policy; the quota appears as `quota` (last). */
export interface PolicyItem {
  name: string;
  limit: number;
  windowMs: number;
}

export interface VerificationResult {
  valid: boolean;
  /**
   * The key's status, or why it was rejected. With `storeUnavailable` the key itself is fine
   * (code VALID) but nothing could be decided, so `valid` is false.
   */
  code: VerificationCode;
  keyId?: string;
  ownerId?: string | null;
  planId?: string;
  /**
   * Per-limit state after this decision; empty when it is unknown (invalid key, store down under
   * failMode closed). Under failMode open/local with the store down: the instance's own counters.
   */
  limits: VerifiedLimit[];
  quota?: { limit: number; remaining: number; resetAt: number };
  /** On RATE_LIMITED / QUOTA_EXCEEDED: ms until this cost can pass; absent when it never can. */
  retryAfterMs?: number;
  /** On RATE_LIMITED / QUOTA_EXCEEDED: the cost is larger than a refusing limit (or the quota) can ever admit. */
  neverFits?: boolean;
  /** Leaky bucket with shaping: wait this long before proceeding. */
  delayMs?: number;
  /** Decided without Redis (failMode open or local). */
  degraded?: boolean;
  /** failMode closed and Redis unreachable or too slow: nothing was decided. */
  storeUnavailable?: boolean;
  /**
   * The limits (and quota) that apply, known even when their state is not; for an unknown key the
   * verifier's `defaultPolicy`, if any. Shared between results: do not mutate.
   */
  policy?: readonly PolicyItem[];
  /** Clock of the decision: Redis TIME when Redis decided, the instance's clock otherwise. */
  nowMs: number;
}
