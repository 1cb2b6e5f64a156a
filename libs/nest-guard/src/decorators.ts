import { createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import type { VerificationResult } from './key-record';

export const RATE_LIMIT_COST_METADATA = 'tollgate:rate-limit-cost';
export const RATE_LIMITS_METADATA = 'tollgate:rate-limits';

/** What one request to this route (or controller) costs, integer 0..1e9; default 1. */
export function RateLimitCost(cost: number): MethodDecorator & ClassDecorator {
  if (!Number.isInteger(cost) || cost < 0 || cost > 1e9) throw new RangeError(`@RateLimitCost(${cost}): cost must be an integer in 0..1e9`);
  return SetMetadata(RATE_LIMIT_COST_METADATA, cost);
}

/** Which of the key's limits (by name) apply on this route; default all. The quota always applies. */
export function RateLimits(...names: string[]): MethodDecorator & ClassDecorator {
  return SetMetadata(RATE_LIMITS_METADATA, names);
}

/** Handler parameter: the guard's verification of this request (`request.tollgate`). */
export const Verification = createParamDecorator((_: unknown, context: ExecutionContext): VerificationResult | undefined => {
  return context.switchToHttp().getRequest<{ tollgate?: VerificationResult }>().tollgate;
});
