import { fixedWindow, type FixedWindowState } from './fixed-window';
import { gcra, type GcraState } from './gcra';
import { leakyBucket, type LeakyBucketState } from './leaky-bucket';
import { slidingLog, type SlidingLogState } from './sliding-log';
import { slidingWindow, type SlidingWindowState } from './sliding-window';
import { tokenBucket, type TokenBucketState } from './token-bucket';
import type { Algorithm, Decision, LimitParams } from './types';

export type LimitState = TokenBucketState | LeakyBucketState | FixedWindowState | SlidingLogState | SlidingWindowState | GcraState;

/** One algorithm's pure function, typed over every state (the caller keys state by algorithm). */
export type Decider = (state: LimitState | undefined, nowMs: number, params: LimitParams, cost: number) => Decision<LimitState | undefined>;

const DECIDERS: Readonly<Record<Algorithm, Decider>> = Object.freeze({
  token_bucket: tokenBucket as Decider,
  leaky_bucket: leakyBucket as Decider,
  fixed_window: fixedWindow as Decider,
  sliding_log: slidingLog as Decider,
  sliding_window: slidingWindow as Decider,
  gcra: gcra as Decider,
});

/** The pure function of `algorithm`, for a caller that resolves it once per params (the memory store). */
export function deciderFor(algorithm: Algorithm): Decider {
  return DECIDERS[algorithm];
}

/**
 * Runs the algorithm named by `params`. The caller keys state by algorithm, so a state handed in
 * always belongs to the algorithm that reads it.
 */
export function decideLimit(state: LimitState | undefined, nowMs: number, params: LimitParams, cost: number): Decision<LimitState | undefined> {
  return DECIDERS[params.algorithm](state, nowMs, params, cost);
}
