import { validateLimitParams } from './validate-limit-params';
import type { LimitParams, LimitParamsInput } from './types';

// Callers pass the same params objects on every request (they come from a cached key entry), so
// validating once per object keeps validation off the hot path without trusting unvalidated input.
const validated = new WeakMap<object, LimitParams>();

/** validateLimitParams, memoised per params object. */
export function resolveLimitParams(input: LimitParamsInput | LimitParams): LimitParams {
  let params = validated.get(input);
  if (params === undefined) {
    params = validateLimitParams(input);
    validated.set(input, params);
    validated.set(params, params);
  }
  return params;
}
