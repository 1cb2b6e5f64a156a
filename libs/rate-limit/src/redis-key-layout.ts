import type { Algorithm } from './types';

/** Short algorithm codes: the Lua dispatch number and the state field (or key) suffix. */
export const ALGORITHM_CODES: Readonly<Record<Algorithm, { num: number; suffix: string }>> = {
  token_bucket: { num: 1, suffix: 'tb' },
  leaky_bucket: { num: 2, suffix: 'lb' },
  fixed_window: { num: 3, suffix: 'fw' },
  sliding_log: { num: 4, suffix: 'sl' },
  sliding_window: { num: 5, suffix: 'sw' },
  gcra: { num: 6, suffix: 'gc' },
};

/** The hash field holding the quota (`<periodStartMs>:<used>`) in the identity hash. */
export const QUOTA_FIELD = 'quota';

/**
 * `<prefix>{<identity>}`: one HASH per identity holding the state of all its limits (but sliding
 * logs), its quota, and `x`, the store-clock instant until which any of them still matters (the
 * hash's TTL). The hash tag puts every counter of one identity in one Cluster slot.
 */
export function identityStateKey(prefix: string, identity: string): string {
  return `${prefix}{${identity}}`;
}

/**
 * The key holding one limit's state: the identity hash (field `limitStateField(name, algorithm)`)
 * for every algorithm but `sliding_log`, whose entries are a LIST `<prefix>{<identity>}:<name>:sl`.
 */
export function limitStateKey(prefix: string, identity: string, name: string, algorithm: Algorithm): string {
  return algorithm === 'sliding_log' ? `${prefix}{${identity}}:${name}:sl` : identityStateKey(prefix, identity);
}

/**
 * `<name>:<alg>`: a limit's field in its identity hash. The algorithm suffix means switching a
 * limit's algorithm starts from fresh state instead of misreading another algorithm's encoding.
 */
export function limitStateField(name: string, algorithm: Algorithm): string {
  return `${name}:${ALGORITHM_CODES[algorithm].suffix}`;
}

/** The key holding the quota of an identity: its identity hash, field `quota` (QUOTA_FIELD). */
export function quotaKey(prefix: string, identity: string): string {
  return identityStateKey(prefix, identity);
}

/** `<prefix><keyPrefix><minuteStartMs>`: a HASH of `<member>|<outcome>` -> count. */
export function meterBucketKey(prefix: string, keyPrefix: string, minuteStartMs: number): string {
  return `${prefix}${keyPrefix}${minuteStartMs}`;
}

/** `<prefix><keyPrefix>buckets`: a ZSET of minute starts (score = member = minuteStartMs). */
export function meterIndexKey(prefix: string, keyPrefix: string): string {
  return `${prefix}${keyPrefix}buckets`;
}
