import type { Verification } from '@tollgate/contracts';
import type { VerificationResult } from '@tollgate/nest-guard';

/** The engine's view of a decision, in the contract's Verification shape. */
export function toVerification(result: VerificationResult): Verification {
  return {
    valid: result.valid,
    code: result.code,
    ...(result.keyId !== undefined ? { keyId: result.keyId } : {}),
    ...(result.ownerId !== undefined ? { ownerId: result.ownerId } : {}),
    ...(result.planId !== undefined ? { planId: result.planId } : {}),
    limits: result.limits.map((limit) => ({ name: limit.name, limit: limit.limit, remaining: limit.remaining, resetMs: limit.resetMs })),
    ...(result.quota ? { quota: { limit: result.quota.limit, remaining: result.quota.remaining, resetAt: new Date(result.quota.resetAt).toISOString() } } : {}),
    ...(result.retryAfterMs !== undefined && Number.isFinite(result.retryAfterMs) ? { retryAfterMs: result.retryAfterMs } : {}),
    // A shaped admission is VALID only once its delay has passed: without this a caller of
    // /v1/keys/verify would serve it at once and exceed the bucket.
    ...(result.valid && result.delayMs !== undefined && result.delayMs > 0 ? { delayMs: result.delayMs } : {}),
  };
}
