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
    if (state.lastMs > t) t = state.lastMs;
    const refill = (t - state.lastMs) * rate;
    tokens = refill >= capacity - state.scaledTokens ? capacity : state.scaledTokens + refill;
  }
  const need = cost * w;
  if (tokens >= need) {
    const left = tokens - need;
    const resetMs = Math.ceil((capacity - left) / rate);
    return {
      allowed: true,
      state: { scaledTokens: left, lastMs: t },
      remaining: Math.floor(left / w),
      resetMs,
      retryAfterMs: 0,
      delayMs: 0,
      neverFits: false,
      ttlMs: resetMs,
    };
  }
  const neverFits = cost > params.burst;
  return {
    allowed: false,
    state,
    remaining: Math.floor(tokens / w),
    resetMs: Math.ceil((capacity - tokens) / rate),
    retryAfterMs: neverFits ? Infinity : Math.ceil((need - tokens) / rate),
    delayMs: 0,
    neverFits,
    ttlMs: 0,
  };
}
