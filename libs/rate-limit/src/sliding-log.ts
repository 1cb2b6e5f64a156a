import { admitted, rejected } from './decision';
import type { Decision, LimitParams } from './types';

/**
 * Admitted requests as parallel arrays of timestamps and costs, live between `head` and `end`,
 * at most one entry per ms: a request at the newest entry's instant adds its cost to that entry.
 * The newest entry's cost is `newestCost` (its slot in `costs` is written only when a later entry
 * is appended), so merging into it copies nothing. An append writes in place when `end` is the
 * arrays' length, and copies the live range otherwise (a newer state already appended there), so
 * every state stays valid and the common path is O(1). Arrays are also compacted by copying once
 * they are half dead.
 */
export interface SlidingLogState {
  readonly times: number[];
  readonly costs: number[];
  readonly head: number;
  readonly end: number;
  /** Sum of costs in [head, end). */
  readonly sum: number;
  /** The cost of the newest entry (index end - 1); `costs[end - 1]` is not read. */
  readonly newestCost: number;
}

const EMPTY: readonly number[] = [];

/**
 * Exact: admitted cost in any (t - windowMs, t] never exceeds limit. A cost-0 request adds no
 * entry; when the log is empty after it, the state is dropped (undefined, ttlMs 0).
 */
export function slidingLog(
  state: SlidingLogState | undefined,
  nowMs: number,
  params: LimitParams,
  cost: number,
): Decision<SlidingLogState | undefined> {
  const w = params.windowMs;
  const limit = params.limit;
  let times = EMPTY as number[];
  let costs = EMPTY as number[];
  let head = 0;
  let end = 0;
  let sum = 0;
  let newestCost = 0;
  let t = nowMs;
  if (state !== undefined) {
    times = state.times;
    costs = state.costs;
    head = state.head;
    end = state.end;
    sum = state.sum;
    newestCost = state.newestCost;
    // Entries are in time order; a clock that steps back is held at the newest entry.
    if (end > head && times[end - 1] > t) t = times[end - 1];
    const cutoff = t - w;
    while (head < end && times[head] <= cutoff) {
      sum -= head === end - 1 ? newestCost : costs[head];
      head++;
    }
  }
  const live = end > head;
  if (sum + cost <= limit) {
    const remaining = limit - sum - cost;
    if (cost === 0) {
      // A read: no entry. The state only loses the entries that left the window.
      if (!live) return admitted(undefined, remaining, 0, 0);
      const kept = state !== undefined && state.head === head ? state : { times, costs, head, end, sum, newestCost };
      return admitted(kept, remaining, times[end - 1] + w - nowMs, 0);
    }
    if (live && times[end - 1] === t) {
      // Same ms as the newest entry: merge into it (copy-on-write: only the state object is new).
      return admitted({ times, costs, head, end, sum: sum + cost, newestCost: newestCost + cost }, remaining, t + w - nowMs, 0);
    }
    if (times.length !== end || times === EMPTY || (head > 32 && head * 2 > end)) {
      // Copy, never shift or overwrite in place: older and newer states share these arrays.
      times = times.slice(head, end);
      costs = costs.slice(head, end);
      end -= head;
      head = 0;
    }
    // Safe in place: no state sharing these arrays reads index end - 1 as anything but its newest
    // entry (whose cost it keeps in newestCost), since none extends past `end`.
    if (live) costs[end - 1] = newestCost;
    times[end] = t;
    costs[end] = cost;
    return admitted({ times, costs, head, end: end + 1, sum: sum + cost, newestCost: cost }, remaining, t + w - nowMs, 0);
  }
  const neverFits = cost > limit;
  let retryAfterMs = 0;
  if (!neverFits) {
    // Walk from the oldest entry until enough cost has expired for this request to fit.
    let left = sum;
    let i = head;
    while (left + cost > limit) {
      left -= i === end - 1 ? newestCost : costs[i];
      i++;
    }
    retryAfterMs = times[i - 1] + w - nowMs;
  }
  return rejected(state, limit - sum, live ? times[end - 1] + w - nowMs : 0, retryAfterMs, neverFits);
}
