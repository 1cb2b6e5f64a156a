import { admitted, rejected } from './decision';
import type { Decision, LimitParams } from './types';

/**
 * Theoretical arrival time, kept as whole ms plus a remainder in 1/limit ms so that the emission
 * interval windowMs/limit never rounds: tat = tatMs + tatRem/limit, 0 <= tatRem < limit.
 */
export interface GcraState {
  readonly tatMs: number;
  readonly tatRem: number;
}

/**
 * GCRA (virtual scheduling): emission interval T = windowMs/limit, tolerance (burst-1)·T, so
 * `burst` requests pass at once from idle and then one per T.
 */
export function gcra(state: GcraState | undefined, nowMs: number, params: LimitParams, cost: number): Decision<GcraState | undefined> {
  const w = params.windowMs;
  const rate = params.limit;
  const capacity = params.burst * w;
  let baseMs = nowMs;
  let baseRem = 0;
  if (state !== undefined && (state.tatMs > nowMs || (state.tatMs === nowMs && state.tatRem > 0))) {
    baseMs = state.tatMs;
    baseRem = state.tatRem;
  }
  // Debt = (max(tat, now) - now) × limit: how far ahead of schedule the identity is, scaled.
  const debt = (baseMs - nowMs) * rate + baseRem;
  const need = cost * w;
  if (debt + need <= capacity) {
    const total = baseRem + need;
    const whole = Math.floor(total / rate);
    const tatMs = baseMs + whole;
    const tatRem = total - whole * rate;
    return admitted({ tatMs, tatRem }, Math.floor((capacity - debt - need) / w), tatMs - nowMs + (tatRem > 0 ? 1 : 0), 0);
  }
  return rejected(
    state,
    Math.floor((capacity - debt) / w),
    baseMs - nowMs + (baseRem > 0 ? 1 : 0),
    Math.ceil((debt + need - capacity) / rate),
    cost > params.burst,
  );
}
