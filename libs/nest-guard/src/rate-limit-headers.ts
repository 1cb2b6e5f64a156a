/**
 * Response headers for a rate-limit decision:
 * - IETF draft-ietf-httpapi-ratelimit-headers, as Structured Fields (RFC 8941):
 *   `RateLimit-Policy: "burst";q=10;w=1, "sustained";q=100;w=60` and `RateLimit: "burst";r=3;t=1`
 * - the de-facto `X-RateLimit-Limit/Remaining/Reset` (Reset in Unix seconds)
 * - on rejection, `Retry-After` in whole seconds, never early, with jitter so rejected clients
 *   do not all come back in the same second.
 */

export interface LimitState {
  name: string;
  limit: number;
  windowMs: number;
  remaining: number;
  /** ms until this limit has room again (0 when it has room now) */
  resetMs: number;
}

/** RFC 8941 sf-string: quoted, with `\` and `"` escaped; other characters must be printable ASCII. */
export function sfString(value: string): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return `"${printable.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Seconds as an sf-integer, rounded up so a client never comes back early. */
function seconds(ms: number): number {
  return Math.max(0, Math.ceil(ms / 1000));
}

/**
 * The limit the client should watch: when some limit blocks, the one that blocks longest;
 * otherwise the one with the fewest requests remaining (ties: the later reset).
 */
export function mostConstrained(limits: readonly LimitState[]): LimitState | undefined {
  let best: LimitState | undefined;
  for (const limit of limits) {
    if (!best) {
      best = limit;
      continue;
    }
    const blocked = limit.remaining <= 0;
    const bestBlocked = best.remaining <= 0;
    if (blocked !== bestBlocked) {
      if (blocked) best = limit;
      continue;
    }
    if (blocked) {
      if (limit.resetMs > best.resetMs) best = limit;
      continue;
    }
    if (limit.remaining < best.remaining || (limit.remaining === best.remaining && limit.resetMs > best.resetMs)) best = limit;
  }
  return best;
}

export function rateLimitPolicyHeader(limits: readonly LimitState[]): string {
  return limits.map((limit) => `${sfString(limit.name)};q=${limit.limit};w=${Math.max(1, seconds(limit.windowMs))}`).join(', ');
}

export function rateLimitHeader(limit: LimitState): string {
  return `${sfString(limit.name)};r=${Math.max(0, Math.floor(limit.remaining))};t=${seconds(limit.resetMs)}`;
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

export function rateLimitHeaders(limits: readonly LimitState[], nowMs: number): Record<string, string> {
  const headers: Record<string, string> = {};
  const watched = mostConstrained(limits);
  if (!watched) return headers;
  headers['ratelimit-policy'] = rateLimitPolicyHeader(limits);
  headers['ratelimit'] = rateLimitHeader(watched);
  headers['x-ratelimit-limit'] = String(watched.limit);
  headers['x-ratelimit-remaining'] = String(Math.max(0, Math.floor(watched.remaining)));
  headers['x-ratelimit-reset'] = String(Math.ceil((nowMs + watched.resetMs) / 1000));
  return headers;
}
