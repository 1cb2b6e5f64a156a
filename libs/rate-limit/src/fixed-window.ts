import type { Decision, LimitParams } from './types';

export interface FixedWindowState {
  readonly windowStartMs: number;
  readonly count: number;
}

/** At most `limit` per window; windows are aligned to multiples of windowMs since the Unix epoch. */
export function fixedWindow(
  state: FixedWindowState | undefined,
  nowMs: number,
  params: LimitParams,
  cost: number,
): Decision<FixedWindowState | undefined> {
  const w = params.windowMs;
  let start = Math.floor(nowMs / w) * w;
  let count = 0;
  if (state !== undefined && state.windowStartMs >= start) {
    // Equal: the same window. Later: the clock stepped back, so stay in the window already counted.
    start = state.windowStartMs;
    count = state.count;
  }
  const resetMs = start + w - nowMs;
  if (count + cost <= params.limit) {
    return {
      allowed: true,
      state: { windowStartMs: start, count: count + cost },
      remaining: params.limit - count - cost,
      resetMs,
      retryAfterMs: 0,
      delayMs: 0,
      neverFits: false,
      ttlMs: resetMs,
    };
  }
  const neverFits = cost > params.limit;
  return {
    allowed: false,
    state,
    remaining: params.limit - count,
    resetMs,
    retryAfterMs: neverFits ? Infinity : resetMs,
    delayMs: 0,
    neverFits,
    ttlMs: 0,
  };
}
