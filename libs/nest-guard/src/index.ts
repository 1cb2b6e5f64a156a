// The public API: what docs/guard.md documents and what the API, its tests and the bench use.
export type {
  FailMode,
  GuardLimit,
  GuardQuota,
  KeyLookup,
  KeyRecord,
  PolicyItem,
  VerificationCode,
  VerificationResult,
  VerifiedLimit,
} from './key-record';
export type { KeyCacheStats } from './key-cache';
export type { BreakerState } from './store-breaker';
export { publishInvalidation, type InvalidationMessage } from './invalidation';
export { createGuardRedis, WriteCoalescingRedis, type GuardRedisClient } from './redis-client';
export {
  KeyVerifier,
  USAGE_METER_PREFIX,
  sha256Hex,
  type GuardLogger,
  type KeyVerifierOptions,
  type VerifierCounters,
  type VerifierHealth,
  type VerifyOptions,
} from './key-verifier';
export { verificationHeaders } from './verification-headers';
export { GuardRejection, GuardRejectionFilter, sendGuardRejection, type GuardProblem, type GuardRejectionCode, type ReplyLike } from './guard-rejection';
export { RateLimitCost, RateLimits, Verification } from './decorators';
export { TollgateGuard, type GuardedRequest } from './tollgate-guard';
export { TollgateGuardModule, type TollgateGuardModuleAsyncOptions, type TollgateGuardModuleOptions, type TollgateGuardOptions } from './tollgate-guard.module';
