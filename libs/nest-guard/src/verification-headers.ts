import type { VerificationResult } from './key-record';
import { mostConstrained, rateLimitHeader, rateLimitPolicyHeader, retryAfterSeconds, type LimitState } from './rate-limit-headers';

/**
 * Response headers for a verification: `RateLimit-Policy` for every applied limit (and the quota,
 * named `quota`), `RateLimit` + `X-RateLimit-*` for the most constrained one whose state is known,
 * and `Retry-After` (jittered, never early) on a refusal with a known wait. A limit that blocked
 * reports `t` = the wait until it admits this cost; other limits their full-reset time.
 */
export function verificationHeaders(result: VerificationResult, random: () => number = Math.random): Record<string, string> {
  const headers: Record<string, string> = {};
  const states: LimitState[] = result.limits.map((limit) => ({
    name: limit.name,
    limit: limit.limit,
    windowMs: limit.windowMs,
    remaining: limit.remaining,
    resetMs: limit.retryAfterMs ?? limit.resetMs,
  }));
  if (result.quota !== undefined) {
    const windowMs = result.policy?.find((item) => item.name === 'quota')?.windowMs ?? 86_400_000;
    states.push({ name: 'quota', limit: result.quota.limit, windowMs, remaining: result.quota.remaining, resetMs: Math.max(0, result.quota.resetAt - result.nowMs) });
  }
  const policy = result.policy ?? states;
  if (policy.length > 0) headers['ratelimit-policy'] = rateLimitPolicyHeader(policy.map((item) => ({ ...item, remaining: 0, resetMs: 0 })));
  const watched = mostConstrained(states);
  if (watched !== undefined) {
    headers['ratelimit'] = rateLimitHeader(watched);
    headers['x-ratelimit-limit'] = String(watched.limit);
    headers['x-ratelimit-remaining'] = String(Math.max(0, Math.floor(watched.remaining)));
    headers['x-ratelimit-reset'] = String(Math.ceil((result.nowMs + watched.resetMs) / 1000));
  }
  if ((result.code === 'RATE_LIMITED' || result.code === 'QUOTA_EXCEEDED') && result.retryAfterMs !== undefined) {
    headers['retry-after'] = String(retryAfterSeconds(result.retryAfterMs, random));
  }
  return headers;
}
