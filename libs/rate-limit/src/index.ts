export type {
  Algorithm,
  CheckCode,
  CheckRequest,
  CheckResult,
  Decision,
  LimitCheck,
  LimitOutcome,
  LimitParams,
  LimitParamsInput,
  MeterOutcome,
  MeterTarget,
  QuotaCheck,
  QuotaOutcome,
  QuotaPeriod,
  RateLimitStore,
} from './types';
export { InvalidLimitParamsError } from './errors';
export { ALGORITHMS, validateLimitParams, validateCost } from './validate-limit-params';
export { tokenBucket, type TokenBucketState } from './token-bucket';
export { leakyBucket, type LeakyBucketState } from './leaky-bucket';
export { fixedWindow, type FixedWindowState } from './fixed-window';
export { slidingLog, type SlidingLogState } from './sliding-log';
export { slidingWindow, type SlidingWindowState } from './sliding-window';
export { gcra, type GcraState } from './gcra';
export { decideLimit, type LimitState } from './decide-limit';
export { quotaPeriod } from './quota-period';
export { MemoryStore, type MemoryStoreOptions } from './memory-store';
export { RedisStore, recordInvalid, recordOutcome, type RedisScriptClient, type RedisStoreOptions } from './redis-store';
export { ScriptRequestError } from './redis-script-batch';
export { limitStateKey, limitStateField, identityStateKey, quotaKey, QUOTA_FIELD, meterBucketKey, meterIndexKey } from './redis-key-layout';
