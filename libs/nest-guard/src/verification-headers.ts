import type { PolicyItem, VerificationResult } from './key-record';

/**
 * Response headers for a verification:
 * - IETF draft-ietf-httpapi-ratelimit-headers, as Structured Fields (RFC 8941):
 *   `RateLimit-Policy: "burst";q=10;w=1, "sustained";q=100;w=60` and `RateLimit: "burst";r=3;t=1`
 * - the de-facto `X-RateLimit-Limit/Remaining/Reset` (Reset in Unix seconds), for the same limit
 * - on a 429, `Retry-After` in whole seconds, never early, with jitter so rejected clients do not
 *   all come back in the same second.
 */

/** The state of one limit (or the quota) as the headers describe it. */
export interface LimitState {
  name: string;
  limit: number;
  windowMs: number;
  remaining: number;
  /** ms until this limit has room: for a blocking limit, until it admits this cost. */
  resetMs: number;
  /** This limit refused the request (whatever its remaining count says). */
  blocked: boolean;
}

/** RFC 8941 sf-string: quoted, with `\` and `"` escaped; other characters must be printable ASCII. */
export function sfString(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return `"${printable.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/**
 * sfString of a limit's name, for the `RateLimit` header of every answer: three regex passes per
 * request otherwise. Names come from the configured limits, so few; the cache is still bounded.
 */
const sfNames = new Map<string, string>();
function sfName(name: string): string {
  let quoted = sfNames.get(name);
  if (quoted === undefined) {
    if (sfNames.size >= 1024) sfNames.clear();
    quoted = sfString(name);
    sfNames.set(name, quoted);
  }
  return quoted;
}

/** Seconds as an sf-integer, rounded up so a client never comes back early. */
function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/**
 * The limit the client should watch: the limits that refused this request first, the one that
 * blocks longest; otherwise the one with the fewest requests remaining (absolute count, not a
 * share of the limit; ties: the later reset).
 */
export function mostConstrained(limits: readonly LimitState[]): LimitState | undefined {
  let best: LimitState | undefined;
  for (const limit of limits) if (best === undefined || moreConstrained(limit, best)) best = limit;
  return best;
}

/** Whether `a` should be watched rather than `b` (see mostConstrained). */
function moreConstrained(a: LimitState, b: LimitState): boolean {
  return watchInstead(a.blocked, a.remaining, a.resetMs, b.blocked, b.remaining, b.resetMs);
}

/** moreConstrained on the fields themselves (a's, then b's). */
function watchInstead(aBlocked: boolean, aRemaining: number, aResetMs: number, bBlocked: boolean, bRemaining: number, bResetMs: number): boolean {
  if (aBlocked !== bBlocked) return aBlocked;
  if (aBlocked) return aResetMs > bResetMs;
  return aRemaining < bRemaining || (aRemaining === bRemaining && aResetMs > bResetMs);
}

/** `RateLimit-Policy`, built once per policy array (the verifier reuses one array per route selection and quota period). */
const policyHeaders = new WeakMap<readonly PolicyItem[], string>();

export function rateLimitPolicyHeader(policy: readonly PolicyItem[]): string {
  let header = policyHeaders.get(policy);
  if (header === undefined) {
    header = policy.map((item) => `${sfString(item.name)};q=${item.limit};w=${Math.max(1, seconds(item.windowMs))}`).join(', ');
    policyHeaders.set(policy, header);
  }
  return header;
}

/**
 * Whole seconds to wait: the true wait plus a random jitter of 0 to max(1 s, 10 % of the wait),
 * rounded up, so it is never less than the true wait.
 */
export function retryAfterSeconds(waitMs: number, random: () => number = Math.random): number {
  const wait = Math.max(0, waitMs);
  const jitterMs = random() * Math.max(1000, wait * 0.1);
  return Math.max(1, Math.ceil((wait + jitterMs) / 1000));
}

/**
 * The headers of a verification, for every answer that has a policy to advertise:
 * - `RateLimit-Policy`: every applied limit, then the quota as `quota` (window: its calendar period).
 * - `RateLimit` + `X-RateLimit-*`: the most constrained limit (see mostConstrained). `t` (and
 *   `X-RateLimit-Reset`) is, for a limit that refused this request, the wait until it admits this
 *   cost (its window when it never can); for one this request left with no room, the time until it
 *   has room for one unit (roomMs, at most its full reset); otherwise the time until it is fully
 *   reset, as the IETF draft's `t` (with room now, "until it has room" would always say 0).
 * - When no state is known (disabled/expired key, store down under failMode closed, unknown key
 *   with a default policy): the first policy item with `r=0;t=0`, `X-RateLimit-Remaining: 0` and
 *   `X-RateLimit-Reset` = now.
 * - `Retry-After` on RATE_LIMITED / QUOTA_EXCEEDED: from the true wait, or, for a cost that can
 *   never fit, from the window of the limit that refused it (a large value, so clients back off).
 * No policy (unknown key without a default policy, a key without limits or quota): no headers.
 */
export function verificationHeaders(result: VerificationResult, random: () => number = Math.random): Record<string, string> {
  const headers: Record<string, string> = {};
  const policy = result.policy;
  if (policy === undefined || policy.length === 0) return headers;
  headers['ratelimit-policy'] = rateLimitPolicyHeader(policy);

  // The watched limit (see mostConstrained), kept in locals: no LimitState object per limit and request.
  let found = false;
  let wName = '';
  let wLimit = 0;
  let wRemaining = 0;
  let wResetMs = 0;
  let wBlocked = false;
  const limits = result.limits;
  for (let i = 0; i < limits.length; i++) {
    const limit = limits[i];
    const blocked = limit.blocked === true;
    const resetMs = blocked ? (limit.retryAfterMs ?? limit.windowMs) : (limit.roomMs ?? limit.resetMs);
    if (!found || watchInstead(blocked, limit.remaining, resetMs, wBlocked, wRemaining, wResetMs)) {
      found = true;
      wName = limit.name;
      wLimit = limit.limit;
      wRemaining = limit.remaining;
      wResetMs = resetMs;
      wBlocked = blocked;
    }
  }
  const quota = result.quota;
  if (quota !== undefined) {
    const last = policy[policy.length - 1];
    const windowMs = last.name === 'quota' ? last.windowMs : 86_400_000;
    const blocked = result.code === 'QUOTA_EXCEEDED';
    const untilReset = Math.max(0, quota.resetAt - result.nowMs);
    const resetMs = blocked && result.neverFits === true ? windowMs : untilReset;
    if (!found || watchInstead(blocked, quota.remaining, resetMs, wBlocked, wRemaining, wResetMs)) {
      found = true;
      wName = 'quota';
      wLimit = quota.limit;
      wRemaining = quota.remaining;
      wResetMs = resetMs;
      wBlocked = blocked;
    }
  }

  if (!found) {
    // The state is unknown or does not apply: name the first policy item, with nothing remaining.
    const item = policy[0];
    headers['ratelimit'] = `${sfName(item.name)};r=0;t=0`;
    headers['x-ratelimit-limit'] = String(item.limit);
    headers['x-ratelimit-remaining'] = '0';
    headers['x-ratelimit-reset'] = String(Math.ceil(result.nowMs / 1000));
    return headers;
  }
  const remaining = Math.max(0, Math.floor(wRemaining));
  headers['ratelimit'] = `${sfName(wName)};r=${remaining};t=${seconds(wResetMs)}`;
  headers['x-ratelimit-limit'] = String(wLimit);
  headers['x-ratelimit-remaining'] = String(remaining);
  headers['x-ratelimit-reset'] = String(Math.ceil((result.nowMs + wResetMs) / 1000));
  if (result.code === 'RATE_LIMITED' || result.code === 'QUOTA_EXCEEDED') {
    headers['retry-after'] = String(retryAfterSeconds(result.retryAfterMs ?? wResetMs, random));
  }
  return headers;
}
