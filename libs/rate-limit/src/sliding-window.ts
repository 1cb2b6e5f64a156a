import { admitted, rejected } from './decision';
import type { Decision, LimitParams } from './types';

export interface SlidingWindowState {
  readonly windowStartMs: number;
  readonly current: number;
  readonly previous: number;
}

/**
 * Counter approximation: passes iff current + previous × (1 - elapsed/windowMs) + cost <= limit.
 * Evaluated multiplied through by windowMs, so it is integer arithmetic (exact while
 * limit × windowMs <= 2^53) and the Lua copy computes the same bits.
 */
export function slidingWindow(
  state: SlidingWindowState | undefined,
  nowMs: number,
  params: LimitParams,
  cost: number,
): Decision<SlidingWindowState | undefined> {
  const w = params.windowMs;
  const limit = params.limit;
  let start = Math.floor(nowMs / w) * w;
  let current = 0;
  let previous = 0;
  if (state !== undefined) {
    if (state.windowStartMs >= start) {
      start = state.windowStartMs;
      current = state.current;
      previous = state.previous;
    } else if (state.windowStartMs === start - w) {
      previous = state.current;
    }
  }
  // A clock that stepped back into an earlier window is held at the start of the stored one.
  const t = nowMs > start ? nowMs : start;
  const elapsed = t - start;
  const weighted = current * w + previous * (w - elapsed);
  const room = limit * w - weighted;
  if (cost * w <= room) {
    const next = current + cost;
    const resetMs = next > 0 ? start + 2 * w - nowMs : previous > 0 ? start + w - nowMs : 0;
    // A state that counts nothing is no state (its ttlMs is 0, so the stores drop it): returning
    // it would keep a window start held from a clock that stepped back.
    const state = next === 0 && previous === 0 ? undefined : { windowStartMs: start, current: next, previous };
    return admitted(state, Math.floor((room - cost * w) / w), resetMs, 0);
  }
  const neverFits = cost > limit;
  let retryAfterMs = 0;
  if (!neverFits) {
    // The estimate only falls as time passes (previous decays, then current becomes previous and
    // decays), so the first instant it fits has a closed form; floors make it never early.
    const spare = (limit - cost) * w;
    if (current * w <= spare) {
      retryAfterMs = t - nowMs + w - elapsed - Math.floor((spare - current * w) / previous);
    } else {
      retryAfterMs = t - nowMs + 2 * w - elapsed - Math.floor(spare / current);
    }
  }
  const resetMs = current > 0 ? start + 2 * w - nowMs : previous > 0 ? start + w - nowMs : 0;
  return rejected(state, room <= 0 ? 0 : Math.floor(room / w), resetMs, retryAfterMs, neverFits);
}
