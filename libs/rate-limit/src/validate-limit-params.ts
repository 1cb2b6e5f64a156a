import { InvalidLimitParamsError } from './errors';
import type { Algorithm, LimitParams, LimitParamsInput, QuotaCheck } from './types';

/** Every algorithm of the contract, in its order (the one list: validation, tests and benchmarks use it). */
export const ALGORITHMS: readonly Algorithm[] = Object.freeze(['token_bucket', 'leaky_bucket', 'fixed_window', 'sliding_log', 'sliding_window', 'gcra'] as const);
const MAX_LIMIT = 1e9;
// 31 days: the contract's upper bound for windowMs.
const MAX_WINDOW_MS = 2_678_400_000;

function intInRange(field: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidLimitParamsError(field, `must be an integer in ${min}..${max}`);
  }
  return value;
}

/**
 * Checks one limit's params against the contract and fills in `burst`: `limit` for the buckets,
 * 1 for gcra; other algorithms ignore it. Throws InvalidLimitParamsError naming the field.
 */
export function validateLimitParams(input: LimitParamsInput): LimitParams {
  if (input === null || typeof input !== 'object') throw new InvalidLimitParamsError('params', 'must be an object');
  if (!ALGORITHMS.includes(input.algorithm)) {
    throw new InvalidLimitParamsError('algorithm', `must be one of ${ALGORITHMS.join(', ')}`);
  }
  const limit = intInRange('limit', input.limit, 1, MAX_LIMIT);
  const windowMs = intInRange('windowMs', input.windowMs, 1, MAX_WINDOW_MS);
  const defaultBurst = input.algorithm === 'gcra' ? 1 : limit;
  const burst = input.burst === undefined ? defaultBurst : intInRange('burst', input.burst, 1, MAX_LIMIT);
  if (input.shaping !== undefined && typeof input.shaping !== 'boolean') {
    throw new InvalidLimitParamsError('shaping', 'must be a boolean');
  }
  const shaping = input.shaping === true;
  if (shaping && input.algorithm !== 'leaky_bucket') {
    throw new InvalidLimitParamsError('shaping', 'is only supported by leaky_bucket');
  }
  return Object.freeze({ algorithm: input.algorithm, limit, windowMs, burst, shaping });
}

/** Integer cost 0..1e9 (0 reads a limit without charging it). */
export function validateCost(cost: number | undefined): number {
  if (cost === undefined) return 1;
  return intInRange('cost', cost, 0, MAX_LIMIT);
}

/** Identities become Redis hash tags, so braces inside one would break the tag. */
export function validateIdentity(field: string, identity: unknown): string {
  if (typeof identity !== 'string' || identity.length === 0 || identity.includes('{') || identity.includes('}')) {
    throw new InvalidLimitParamsError(field, 'must be a non-empty string without { or }');
  }
  return identity;
}

export function validateQuotaCheck(quota: QuotaCheck): Required<QuotaCheck> {
  validateIdentity('quota.identity', quota.identity);
  const limit = intInRange('quota.limit', quota.limit, 1, Number.MAX_SAFE_INTEGER);
  if (quota.period !== 'day' && quota.period !== 'month') throw new InvalidLimitParamsError('quota.period', 'must be day or month');
  const resetDay = quota.resetDay === undefined ? 1 : intInRange('quota.resetDay', quota.resetDay, 1, 28);
  return { identity: quota.identity, limit, period: quota.period, resetDay };
}
