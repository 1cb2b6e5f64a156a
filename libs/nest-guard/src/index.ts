export { mostConstrained, rateLimitHeaders, rateLimitHeader, rateLimitPolicyHeader, retryAfterSeconds, sfString, type LimitState } from './rate-limit-headers';
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
export { KeyCache, type KeyCacheOptions, type KeyCacheStats } from './key-cache';
export { BlockedKeys, type BlockedLimit, type BlockedMatch } from './blocked-keys';
export { Deadlines } from './deadlines';
export { CircuitBreaker, StoreTimeoutError, withTimeout, type BreakerState, type CircuitBreakerOptions } from './store-breaker';
export {
  InvalidationSubscriber,
  invalidationChannel,
  parseInvalidation,
  publishInvalidation,
  type InvalidationMessage,
  type InvalidationSubscriberHandlers,
} from './invalidation';
export { createGuardRedis, type GuardRedisClient } from './redis-client';
export {
  KeyVerifier,
  USAGE_METER_PREFIX,
  limitIdentity,
  sha256Hex,
  type GuardLogger,
  type KeyVerifierOptions,
  type VerifierCounters,
  type VerifierHealth,
  type VerifyOptions,
} from './key-verifier';
export { verificationHeaders } from './verification-headers';
export { GuardRejection, GuardRejectionFilter, PROBLEM_CONTENT_TYPE, sendGuardRejection, type GuardProblem, type GuardRejectionCode, type ReplyLike } from './guard-rejection';
export { RATE_LIMIT_COST_METADATA, RATE_LIMITS_METADATA, RateLimitCost, RateLimits, Verification } from './decorators';
export { TollgateGuard, extractApiKey, type GuardedRequest } from './tollgate-guard';
export {
  TOLLGATE_GUARD_OPTIONS,
  TollgateGuardModule,
  type TollgateGuardModuleAsyncOptions,
  type TollgateGuardModuleOptions,
  type TollgateGuardOptions,
} from './tollgate-guard.module';
