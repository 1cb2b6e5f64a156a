import fc from 'fast-check';
import { decideLimit, type LimitState } from './decide-limit';
import type { Decision, LimitParams } from './types';

export interface Arrival {
  t: number;
  cost: number;
}

export interface Admission extends Arrival {
  /** When the request proceeds: t, or t + delayMs when shaped. */
  at: number;
}

export interface Step {
  arrival: Arrival;
  before: LimitState | undefined;
  decision: Decision<LimitState | undefined>;
}

// An aligned, realistic epoch instant so window alignment and big timestamps are exercised.
export const BASE_MS = Date.UTC(2026, 4, 17, 12, 0, 0);

/** Random arrival sequences: non-decreasing times (bursts at one instant included), small costs. */
export function arrivalsArb(maxGapMs: number, maxCost = 3, maxLength = 120): fc.Arbitrary<Arrival[]> {
  return fc
    .array(fc.record({ gap: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: maxGapMs })), cost: fc.integer({ min: 1, max: maxCost }) }), {
      minLength: 1,
      maxLength,
    })
    .chain((steps) =>
      fc.integer({ min: 0, max: 10 * maxGapMs }).map((offset) => {
        let t = BASE_MS + offset;
        return steps.map((s) => ({ t: (t += s.gap), cost: s.cost }));
      }),
    );
}

/**
 * Like arrivalsArb, but the clock also steps back (by up to maxBackMs at a time), so the branches
 * that hold a clock that went backwards are exercised.
 */
export function clockBackArrivalsArb(maxGapMs: number, maxBackMs: number, maxCost = 3, maxLength = 120): fc.Arbitrary<Arrival[]> {
  const gap = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: maxGapMs }), fc.integer({ min: -maxBackMs, max: -1 }));
  return fc
    .array(fc.record({ gap, cost: fc.integer({ min: 0, max: maxCost }) }), { minLength: 1, maxLength })
    .chain((steps) =>
      fc.integer({ min: maxBackMs * maxLength, max: maxBackMs * maxLength + 10 * maxGapMs }).map((offset) => {
        let t = BASE_MS + offset;
        return steps.map((s) => ({ t: (t += s.gap), cost: s.cost }));
      }),
    );
}

/** Feeds arrivals through one algorithm with a controllable clock, committing admitted requests. */
export function simulate(params: LimitParams, arrivals: readonly Arrival[]): { admitted: Admission[]; steps: Step[] } {
  let state: LimitState | undefined;
  const admitted: Admission[] = [];
  const steps: Step[] = [];
  for (const arrival of arrivals) {
    const decision = decideLimit(state, arrival.t, params, arrival.cost);
    steps.push({ arrival, before: state, decision });
    if (decision.allowed) {
      state = decision.state;
      admitted.push({ ...arrival, at: arrival.t + decision.delayMs });
    }
  }
  return { admitted, steps };
}
