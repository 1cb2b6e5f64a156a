import { describe, expect, it } from 'vitest';
import type { VerificationResult } from './key-record';
import { mostConstrained, rateLimitPolicyHeader, retryAfterSeconds, sfString, verificationHeaders, type LimitState } from './verification-headers';

const nowMs = 1_700_000_000_000;
const policy = [
  { name: 'burst', limit: 10, windowMs: 1000 },
  { name: 'sustained', limit: 1000, windowMs: 3_600_000 },
];

describe('verificationHeaders', () => {
  it('allowed: the policy of every limit and the state of the most constrained one', () => {
    const result: VerificationResult = {
      valid: true,
      code: 'VALID',
      limits: [
        { name: 'burst', limit: 10, windowMs: 1000, remaining: 9, resetMs: 100 },
        { name: 'sustained', limit: 1000, windowMs: 3_600_000, remaining: 400, resetMs: 2_000_000 },
      ],
      policy,
      nowMs,
    };
    expect(verificationHeaders(result)).toEqual({
      'ratelimit-policy': '"burst";q=10;w=1, "sustained";q=1000;w=3600',
      // burst runs out first (9 more requests), so it is the one to watch
      ratelimit: '"burst";r=9;t=1',
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '9',
      'x-ratelimit-reset': String(Math.ceil((nowMs + 100) / 1000)),
    });
  });

  it('watches the fewest remaining in absolute count (not as a share of the limit)', () => {
    const result: VerificationResult = {
      valid: true,
      code: 'VALID',
      limits: [
        { name: 'burst', limit: 10, windowMs: 1000, remaining: 7, resetMs: 300 },
        { name: 'sustained', limit: 1000, windowMs: 3_600_000, remaining: 2, resetMs: 42_100 },
      ],
      policy,
      nowMs,
    };
    expect(verificationHeaders(result)['ratelimit']).toBe('"sustained";r=2;t=43');
  });

  it('rate limited: names the blocking limit with t = its wait, and a Retry-After that is never early', () => {
    const result: VerificationResult = {
      valid: false,
      code: 'RATE_LIMITED',
      limits: [
        { name: 'burst', limit: 10, windowMs: 1000, remaining: 0, resetMs: 1000, blocked: true, retryAfterMs: 2_500 },
        { name: 'sustained', limit: 1000, windowMs: 3_600_000, remaining: 400, resetMs: 2_000_000 },
      ],
      retryAfterMs: 2_500,
      policy,
      nowMs,
    };
    const low = verificationHeaders(result, () => 0);
    expect(low['ratelimit']).toBe('"burst";r=0;t=3');
    expect(low['x-ratelimit-remaining']).toBe('0');
    expect(low['retry-after']).toBe('3');
    expect(verificationHeaders(result, () => 0.999999)['retry-after']).toBe('4');
  });

  it('cost > 1: names the limit that refuses longest even when another has fewer remaining, agreeing with Retry-After', () => {
    // A cost-5 request: "big" has 3 left and refuses it for 4 s; "small" has 1 left and refuses it for 0.5 s.
    const result: VerificationResult = {
      valid: false,
      code: 'RATE_LIMITED',
      limits: [
        { name: 'small', limit: 100, windowMs: 60_000, remaining: 1, resetMs: 30_000, blocked: true, retryAfterMs: 500 },
        { name: 'big', limit: 10, windowMs: 10_000, remaining: 3, resetMs: 9_000, blocked: true, retryAfterMs: 4_000 },
      ],
      retryAfterMs: 4_000,
      policy: [
        { name: 'small', limit: 100, windowMs: 60_000 },
        { name: 'big', limit: 10, windowMs: 10_000 },
      ],
      nowMs,
    };
    const headers = verificationHeaders(result, () => 0);
    expect(headers['ratelimit']).toBe('"big";r=3;t=4');
    expect(headers['x-ratelimit-limit']).toBe('10');
    expect(headers['x-ratelimit-remaining']).toBe('3');
    expect(headers['x-ratelimit-reset']).toBe(String(Math.ceil((nowMs + 4_000) / 1000)));
    expect(headers['retry-after']).toBe('4');
  });

  it('a limit at 0 that did not refuse (shaping, cost 0) never outranks the one that refused', () => {
    const result: VerificationResult = {
      valid: false,
      code: 'RATE_LIMITED',
      limits: [
        { name: 'smooth', limit: 5, windowMs: 1000, remaining: 0, resetMs: 600 },
        { name: 'big', limit: 10, windowMs: 10_000, remaining: 3, resetMs: 9_000, blocked: true, retryAfterMs: 4_000 },
      ],
      retryAfterMs: 4_000,
      policy: [
        { name: 'smooth', limit: 5, windowMs: 1000 },
        { name: 'big', limit: 10, windowMs: 10_000 },
      ],
      nowMs,
    };
    expect(verificationHeaders(result, () => 0)['ratelimit']).toBe('"big";r=3;t=4');
  });

  it('a cost that can never fit: names that limit, t and Retry-After = its window (a large, honest wait)', () => {
    const result: VerificationResult = {
      valid: false,
      code: 'RATE_LIMITED',
      limits: [
        { name: 'burst', limit: 10, windowMs: 60_000, remaining: 10, resetMs: 0, blocked: true },
        { name: 'sustained', limit: 1000, windowMs: 3_600_000, remaining: 400, resetMs: 2_000_000 },
      ],
      neverFits: true,
      policy: [
        { name: 'burst', limit: 10, windowMs: 60_000 },
        { name: 'sustained', limit: 1000, windowMs: 3_600_000 },
      ],
      nowMs,
    };
    const headers = verificationHeaders(result, () => 0);
    expect(headers['ratelimit']).toBe('"burst";r=10;t=60');
    expect(headers['retry-after']).toBe('60');
  });

  it('a cost larger than the whole quota: Retry-After = the quota period', () => {
    const result: VerificationResult = {
      valid: false,
      code: 'QUOTA_EXCEEDED',
      limits: [],
      quota: { limit: 50, remaining: 50, resetAt: nowMs + 7_200_000 },
      neverFits: true,
      policy: [{ name: 'quota', limit: 50, windowMs: 86_400_000 }],
      nowMs,
    };
    const headers = verificationHeaders(result, () => 0);
    expect(headers['ratelimit']).toBe('"quota";r=50;t=86400');
    expect(headers['retry-after']).toBe('86400');
  });

  it('counts the quota as a limit named "quota" with its period as window', () => {
    const result: VerificationResult = {
      valid: false,
      code: 'QUOTA_EXCEEDED',
      limits: [],
      quota: { limit: 50, remaining: 0, resetAt: nowMs + 7_200_000 },
      retryAfterMs: 7_200_000,
      policy: [{ name: 'quota', limit: 50, windowMs: 86_400_000 }],
      nowMs,
    };
    const headers = verificationHeaders(result, () => 0);
    expect(headers['ratelimit-policy']).toBe('"quota";q=50;w=86400');
    expect(headers['ratelimit']).toBe('"quota";r=0;t=7200');
    expect(headers['retry-after']).toBe('7200');
  });

  it('state unknown (disabled key, store down): every header, naming the first policy item with r=0;t=0', () => {
    for (const result of [
      { valid: false, code: 'DISABLED', limits: [], policy, nowMs: nowMs + 1 },
      { valid: false, code: 'VALID', limits: [], policy, storeUnavailable: true, nowMs: nowMs + 1 },
    ] satisfies VerificationResult[]) {
      expect(verificationHeaders(result)).toEqual({
        'ratelimit-policy': '"burst";q=10;w=1, "sustained";q=1000;w=3600',
        ratelimit: '"burst";r=0;t=0',
        'x-ratelimit-limit': '10',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.ceil((nowMs + 1) / 1000)),
      });
    }
  });

  it('unknown key: no headers, unless a default policy is advertised', () => {
    expect(verificationHeaders({ valid: false, code: 'NOT_FOUND', limits: [], nowMs })).toEqual({});
    expect(verificationHeaders({ valid: false, code: 'NOT_FOUND', limits: [], policy: [{ name: 'default', limit: 60, windowMs: 60_000 }], nowMs })).toMatchObject({
      'ratelimit-policy': '"default";q=60;w=60',
      ratelimit: '"default";r=0;t=0',
      'x-ratelimit-remaining': '0',
    });
  });

  it('builds the RateLimit-Policy string once per policy array', () => {
    const items = [{ name: 'a', limit: 1, windowMs: 1500 }];
    const first = rateLimitPolicyHeader(items);
    expect(first).toBe('"a";q=1;w=2');
    items[0].limit = 99; // never done in practice: the arrays are shared and treated as immutable
    expect(rateLimitPolicyHeader(items)).toBe(first);
    expect(rateLimitPolicyHeader([...items])).toBe('"a";q=99;w=2');
  });
});

describe('mostConstrained', () => {
  const burst: LimitState = { name: 'burst', limit: 10, windowMs: 1000, remaining: 7, resetMs: 300, blocked: false };
  const sustained: LimitState = { name: 'sustained', limit: 100, windowMs: 60_000, remaining: 12, resetMs: 42_100, blocked: false };

  it('prefers a blocking limit, the one that blocks longest, whatever the remaining counts', () => {
    const blockedShort = { ...burst, remaining: 5, resetMs: 200, blocked: true };
    const blockedLong = { ...sustained, remaining: 50, resetMs: 30_000, blocked: true };
    expect(mostConstrained([blockedShort, { ...sustained, remaining: 0 }])?.name).toBe('burst');
    expect(mostConstrained([blockedShort, blockedLong])?.name).toBe('sustained');
  });

  it('otherwise the fewest remaining; ties go to the later reset', () => {
    expect(mostConstrained([burst, sustained])?.name).toBe('burst');
    expect(mostConstrained([burst, { ...sustained, remaining: 7 }])?.name).toBe('sustained');
    expect(mostConstrained([])).toBeUndefined();
  });
});

describe('sfString', () => {
  it('escapes names as RFC 8941 strings', () => {
    expect(sfString('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(sfString('naïve')).toBe('"na?ve"');
  });
});

describe('Retry-After', () => {
  it('is never less than the true wait, whatever the jitter', () => {
    for (const wait of [0, 1, 999, 1000, 1001, 15_500, 600_000]) {
      for (const random of [0, 0.5, 0.999999]) {
        const value = retryAfterSeconds(wait, () => random);
        expect(value * 1000).toBeGreaterThanOrEqual(wait);
        expect(Number.isInteger(value)).toBe(true);
      }
    }
  });

  it('adds at most max(1 s, 10 %) of jitter', () => {
    expect(retryAfterSeconds(600_000, () => 0)).toBe(600);
    expect(retryAfterSeconds(600_000, () => 0.999999)).toBe(660);
    expect(retryAfterSeconds(2000, () => 0)).toBe(2);
    expect(retryAfterSeconds(2000, () => 0.999999)).toBe(3);
  });

  it('spreads rejected clients over several seconds', () => {
    const values = new Set(Array.from({ length: 200 }, () => retryAfterSeconds(60_000)));
    expect(values.size).toBeGreaterThanOrEqual(4);
  });
});
