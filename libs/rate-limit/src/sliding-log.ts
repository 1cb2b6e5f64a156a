import type { Decision, LimitParams } from './types';

/**
 * Admitted requests as parallel arrays of timestamps and costs, live between `head` and `end`.
 * An admission appends in place when `end` is the arrays' length, and copies the live range
 * otherwise (a newer state already appended there), so every state stays valid and the common
 * path is O(1). Arrays are also compacted by copying once they are half dead.
 */
export interface SlidingLogState {
  readonly times: number[];
  readonly costs: number[];
  readonly head: number;
  readonly end: number;
  /** Sum of costs in [head, end). */
  readonly sum: number;
}

/** Exact: admitted cost in any (t - windowMs, t] never exceeds limit. */
export function slidingLog(
  state: SlidingLogState | undefined,
  nowMs: number,
  params: LimitParams,
  cost: number,
): Decision<SlidingLogState | undefined> {
  const w = params.windowMs;
  const limit = params.limit;
  let times: number[];
  let costs: number[];
  let head = 0;
  let end = 0;
  let sum = 0;
  let t = nowMs;
  if (state === undefined) {
    times = [];
    costs = [];
  } else {
    times = state.times;
    costs = state.costs;
    head = state.head;
    end = state.end;
    sum = state.sum;
    // Entries are in time order; a clock that steps back is held at the newest entry.
    if (end > head && times[end - 1] > t) t = times[end - 1];
    const cutoff = t - w;
    while (head < end && times[head] <= cutoff) {
      sum -= costs[head];
      head++;
    }
  }
  if (sum + cost <= limit) {
    if (times.length !== end || (head > 32 && head * 2 > end)) {
      // Copy, never shift or overwrite in place: older and newer states share these arrays.
      times = times.slice(head, end);
      costs = costs.slice(head, end);
      end -= head;
      head = 0;
    }
    times[end] = t;
    costs[end] = cost;
    return {
      allowed: true,
      state: { times, costs, head, end: end + 1, sum: sum + cost },
      remaining: limit - sum - cost,
      resetMs: w,
      retryAfterMs: 0,
      delayMs: 0,
      neverFits: false,
      ttlMs: w,
    };
  }
  const neverFits = cost > limit;
  let retryAfterMs = Infinity;
  if (!neverFits) {
    // Walk from the oldest entry until enough cost has expired for this request to fit.
    let left = sum;
    let i = head;
    while (left + cost > limit) {
      left -= costs[i];
      i++;
    }
    retryAfterMs = times[i - 1] + w - t;
  }
  return {
    allowed: false,
    state,
    remaining: limit - sum,
    resetMs: end > head ? times[end - 1] + w - t : 0,
    retryAfterMs,
    delayMs: 0,
    neverFits,
    ttlMs: 0,
  };
}
