import { describe, expect, it } from 'vitest';
import type { VerificationResult } from './key-record';
import { verificationHeaders } from './verification-headers';

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

  it('rate limited: names the blocking limit with t = its wait, and a Retry-After that is never early', () => {
    const result: VerificationResult = {
      valid: false,
      code: 'RATE_LIMITED',
      limits: [
        { name: 'burst', limit: 10, windowMs: 1000, remaining: 0, resetMs: 1000, retryAfterMs: 2_500 },
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

  it('state unknown (disabled key, store down): the policy only', () => {
    const headers = verificationHeaders({ valid: false, code: 'DISABLED', limits: [], policy, nowMs });
    expect(headers).toEqual({ 'ratelimit-policy': '"burst";q=10;w=1, "sustained";q=1000;w=3600' });
  });

  it('unknown key: no headers', () => {
    expect(verificationHeaders({ valid: false, code: 'NOT_FOUND', limits: [], nowMs })).toEqual({});
  });
});
