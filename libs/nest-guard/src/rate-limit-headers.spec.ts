import { describe, expect, it } from 'vitest';
import { mostConstrained, rateLimitHeaders, retryAfterSeconds, sfString, type LimitState } from './rate-limit-headers';

const burst: LimitState = { name: 'burst', limit: 10, windowMs: 1000, remaining: 7, resetMs: 300 };
const sustained: LimitState = { name: 'sustained', limit: 100, windowMs: 60_000, remaining: 12, resetMs: 42_100 };

describe('rate-limit headers', () => {
  it('lists every policy and names the most constrained limit', () => {
    const headers = rateLimitHeaders([burst, sustained], 1_700_000_000_000);
    expect(headers['ratelimit-policy']).toBe('"burst";q=10;w=1, "sustained";q=100;w=60');
    expect(headers['ratelimit']).toBe('"burst";r=7;t=1');
    expect(headers['x-ratelimit-limit']).toBe('10');
    expect(headers['x-ratelimit-remaining']).toBe('7');
    expect(headers['x-ratelimit-reset']).toBe(String(Math.ceil((1_700_000_000_000 + 300) / 1000)));
    const nearlyOut = rateLimitHeaders([burst, { ...sustained, remaining: 2 }], 0);
    expect(nearlyOut['ratelimit']).toBe('"sustained";r=2;t=43');
  });

  it('prefers a blocking limit, the one that blocks longest', () => {
    const blockedShort = { ...burst, remaining: 0, resetMs: 200 };
    const blockedLong = { ...sustained, remaining: 0, resetMs: 30_000 };
    expect(mostConstrained([blockedShort, sustained])?.name).toBe('burst');
    expect(mostConstrained([blockedShort, blockedLong])?.name).toBe('sustained');
  });

  it('escapes names as RFC 8941 strings', () => {
    expect(sfString('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  it('writes no headers without limits', () => {
    expect(rateLimitHeaders([], 0)).toEqual({});
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
