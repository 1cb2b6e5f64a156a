import { bucketLevel, heldClock } from './bucket-level';
import { admitted, rejected } from './decision';
import type { Decision, LimitParams } from './types';

/**
 * Level scaled by windowMs, so draining `limit` per `windowMs` removes exactly `limit` per ms.
 * In shaping mode `lastMs` may lie in the future: it is when the last queued request proceeds.
 */
export interface LeakyBucketState {
  readonly scaledLevel: number;
  readonly lastMs: number;
}

/**
 * Leaky bucket as a meter: passes iff level + cost <= burst.
 *
 * Shaping: a request that does not fit yet is scheduled at the first whole ms at which it fits
 * (after every request queued before it), charged now, and told `delayMs`; it is rejected only
 * when that wait would exceed the time a full bucket takes to drain. Scheduling on whole ms
 * keeps the output within burst + rate × elapsed exactly, not just up to rounding.
 */
export function leakyBucket(
  state: LeakyBucketState | undefined,
  nowMs: number,
  params: LimitParams,
  cost: number,
): Decision<LeakyBucketState | undefined> {
  const w = params.windowMs;
  const rate = params.limit;
  const capacity = params.burst * w;
  let t = nowMs;
  let level = 0;
  if (state !== undefined) {
    // Later than now: requests are queued until then (shaping), or the clock stepped back.
    t = heldClock(state.lastMs, nowMs);
    level = bucketLevel(state.scaledLevel, state.lastMs, t, rate, 0);
  }
  const need = cost * w;
  const over = level + need - capacity;
  const neverFits = cost > params.burst;
  const shaping = params.shaping;
  const maxDelay = shaping ? Math.floor(capacity / rate) : 0;
  const shift = over > 0 ? Math.ceil(over / rate) : 0;
  if (!neverFits && (over <= 0 || (shaping && t - nowMs + shift <= maxDelay))) {
    const execAt = t + shift;
    const drained = shift * rate;
    const next = (drained >= level ? 0 : level - drained) + need;
    const delayMs = shaping ? execAt - nowMs : 0;
    const remaining = delayMs > 0 || next >= capacity ? 0 : Math.floor((capacity - next) / w);
    return admitted({ scaledLevel: next, lastMs: execAt }, remaining, execAt - nowMs + Math.ceil(next / rate), delayMs);
  }
  return rejected(
    state,
    (shaping && t > nowMs) || level >= capacity ? 0 : Math.floor((capacity - level) / w),
    t - nowMs + Math.ceil(level / rate),
    // The first arrival whose scheduled start is at most maxDelay away (0 without shaping).
    t + shift - maxDelay - nowMs,
    neverFits,
  );
}
