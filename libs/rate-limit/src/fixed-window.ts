import { admitted, rejected } from './decision';
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
    return admitted({ windowStartMs: start, count: count + cost }, params.limit - count - cost, resetMs, 0);
  }
  return rejected(state, params.limit - count, resetMs, resetMs, cost > params.limit);
}
