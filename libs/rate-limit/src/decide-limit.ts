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

/**
 * Runs the algorithm named by `params`. The caller keys state by algorithm, so a state handed in
 * always belongs to the algorithm that reads it.
 */
export function decideLimit(
  state: LimitState | undefined,
  nowMs: number,
  params: LimitParams,
  cost: number,
): Decision<LimitState | undefined> {
  switch (params.algorithm) {
    case 'token_bucket':
      return tokenBucket(state as TokenBucketState | undefined, nowMs, params, cost);
    case 'leaky_bucket':
      return leakyBucket(state as LeakyBucketState | undefined, nowMs, params, cost);
    case 'fixed_window':
      return fixedWindow(state as FixedWindowState | undefined, nowMs, params, cost);
    case 'sliding_log':
      return slidingLog(state as SlidingLogState | undefined, nowMs, params, cost);
    case 'sliding_window':
      return slidingWindow(state as SlidingWindowState | undefined, nowMs, params, cost);
    case 'gcra':
      return gcra(state as GcraState | undefined, nowMs, params, cost);
  }
}

const DECIDERS: Readonly<Record<Algorithm, Decider>> = Object.freeze({
  token_bucket: tokenBucket as Decider,
  leaky_bucket: leakyBucket as Decider,
  fixed_window: fixedWindow as Decider,
  sliding_log: slidingLog as Decider,
  sliding_window: slidingWindow as Decider,
  gcra: gcra as Decider,
});

/**
 * The function decideLimit runs for `algorithm`, for a caller that resolves it once per params
 * and calls it directly (the memory store): the same decisions, without the dispatch.
 */
export function deciderFor(algorithm: Algorithm): Decider {
  return DECIDERS[algorithm];
}
