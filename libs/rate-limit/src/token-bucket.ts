import { bucketLevel, heldClock } from './bucket-level';
import { admitted, rejected } from './decision';
import type { Decision, LimitParams } from './types';

/**
 * Tokens are kept scaled by windowMs so that refill (`limit` per `windowMs`) adds exactly
 * `limit` per ms: every quantity stays an integer, hence exact in JS and Lua doubles while
 * burst × windowMs <= 2^53. The Redis script mirrors these operations one for one.
 */
export interface TokenBucketState {
  readonly scaledTokens: number;
  readonly lastMs: number;
}

export function tokenBucket(
  state: TokenBucketState | undefined,
  nowMs: number,
  params: LimitParams,
  cost: number,
): Decision<TokenBucketState | undefined> {
  const w = params.windowMs;
  const rate = params.limit;
  const capacity = params.burst * w;
  let t = nowMs;
  let tokens = capacity;
  if (state !== undefined) {
    // A clock that steps back is held at the last observation, so tokens are never minted twice.
    t = heldClock(state.lastMs, nowMs);
    tokens = bucketLevel(state.scaledTokens, state.lastMs, t, rate, capacity);
  }
  // Durations are from now; while the clock is held they include the time until it moves again.
  const held = t - nowMs;
  const need = cost * w;
  if (tokens >= need) {
    const left = tokens - need;
    return admitted({ scaledTokens: left, lastMs: t }, Math.floor(left / w), held + Math.ceil((capacity - left) / rate), 0);
  }
  return rejected(state, Math.floor(tokens / w), held + Math.ceil((capacity - tokens) / rate), held + Math.ceil((need - tokens) / rate), cost > params.burst);
}
