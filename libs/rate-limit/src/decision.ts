import type { Decision } from './types';

// Every algorithm builds its Decision through these two, so all decisions share one object shape
// (one hidden class in V8) and the clamp of `remaining` lives in one place. The Redis script
// applies the same clamp to every limit's reply (redis-check-script.ts).

/**
 * An admitted request. `ttlMs` = `resetMs`: for every algorithm, the state decides like no state
 * once the limit is fully reset. `remaining` is clamped at 0 (it cannot be negative here, but the
 * clamp is the same for both builders).
 */
export function admitted<S>(state: S, remaining: number, resetMs: number, delayMs: number): Decision<S> {
  return {
    allowed: true,
    state,
    remaining: remaining < 0 ? 0 : remaining,
    resetMs,
    retryAfterMs: 0,
    delayMs,
    neverFits: false,
    ttlMs: resetMs,
  };
}

/**
 * A rejected request: the state is the input state, unchanged, and nothing is written (`ttlMs` 0).
 * `remaining` is clamped at 0: a state written under looser params (e.g. a limit lowered since)
 * can hold more than the new params allow. `retryAfterMs` is Infinity when the cost never fits.
 */
export function rejected<S>(state: S, remaining: number, resetMs: number, retryAfterMs: number, neverFits: boolean): Decision<S> {
  return {
    allowed: false,
    state,
    remaining: remaining < 0 ? 0 : remaining,
    resetMs,
    retryAfterMs: neverFits ? Infinity : retryAfterMs,
    delayMs: 0,
    neverFits,
    ttlMs: 0,
  };
}
