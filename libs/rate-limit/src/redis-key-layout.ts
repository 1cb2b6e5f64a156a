import type { Algorithm } from './types';

/** Short algorithm codes: the Lua dispatch number and the state key suffix. */
export const ALGORITHM_CODES: Readonly<Record<Algorithm, { num: number; suffix: string }>> = {
  token_bucket: { num: 1, suffix: 'tb' },
  leaky_bucket: { num: 2, suffix: 'lb' },
  fixed_window: { num: 3, suffix: 'fw' },
  sliding_log: { num: 4, suffix: 'sl' },
  sliding_window: { num: 5, suffix: 'sw' },
  gcra: { num: 6, suffix: 'gc' },
};

/**
 * `<prefix>{<identity>}:<name>:<alg>`. The hash tag puts every counter of one identity in one
 * Cluster slot; the algorithm suffix means switching a limit's algorithm starts from fresh state
 * instead of misreading another algorithm's encoding.
 */
export function limitStateKey(prefix: string, identity: string, name: string, algorithm: Algorithm): string {
  return `${prefix}{${identity}}:${name}:${ALGORITHM_CODES[algorithm].suffix}`;
}

/** `<prefix>{<identity>}:quota`, holding `<periodStartMs>:<used>`. */
export function quotaKey(prefix: string, identity: string): string {
  return `${prefix}{${identity}}:quota`;
}

/** `<prefix><keyPrefix><minuteStartMs>`: a HASH of `<member>|<outcome>` -> count. */
export function meterBucketKey(prefix: string, keyPrefix: string, minuteStartMs: number): string {
  return `${prefix}${keyPrefix}${minuteStartMs}`;
}

/** `<prefix><keyPrefix>buckets`: a ZSET of minute starts (score = member = minuteStartMs). */
export function meterIndexKey(prefix: string, keyPrefix: string): string {
  return `${prefix}${keyPrefix}buckets`;
}
