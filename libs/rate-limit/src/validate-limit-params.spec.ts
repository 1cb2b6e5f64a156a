import { describe, expect, it } from 'vitest';
import { InvalidLimitParamsError } from './errors';
import { MemoryStore } from './memory-store';
import { validateLimitParams } from './validate-limit-params';

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof InvalidLimitParamsError) return err.field;
    throw err;
  }
  return undefined;
}

describe('validateLimitParams', () => {
  it('fills burst defaults: limit for buckets, 1 for gcra', () => {
    expect(validateLimitParams({ algorithm: 'token_bucket', limit: 7, windowMs: 1000 }).burst).toBe(7);
    expect(validateLimitParams({ algorithm: 'leaky_bucket', limit: 7, windowMs: 1000 }).burst).toBe(7);
    expect(validateLimitParams({ algorithm: 'gcra', limit: 7, windowMs: 1000 }).burst).toBe(1);
  });

  it('names the field of invalid params', () => {
    expect(fieldOf(() => validateLimitParams({ algorithm: 'nope' as never, limit: 1, windowMs: 1 }))).toBe('algorithm');
    expect(fieldOf(() => validateLimitParams({ algorithm: 'gcra', limit: 0, windowMs: 1 }))).toBe('limit');
    expect(fieldOf(() => validateLimitParams({ algorithm: 'gcra', limit: 1e9 + 1, windowMs: 1 }))).toBe('limit');
    expect(fieldOf(() => validateLimitParams({ algorithm: 'gcra', limit: 1.5, windowMs: 1 }))).toBe('limit');
    expect(fieldOf(() => validateLimitParams({ algorithm: 'gcra', limit: 1, windowMs: 2_678_400_001 }))).toBe('windowMs');
    expect(fieldOf(() => validateLimitParams({ algorithm: 'gcra', limit: 1, windowMs: 10, burst: 0 }))).toBe('burst');
    expect(fieldOf(() => validateLimitParams({ algorithm: 'gcra', limit: 1, windowMs: 10, shaping: true }))).toBe('shaping');
    expect(fieldOf(() => validateLimitParams({ algorithm: 'leaky_bucket', limit: 1, windowMs: 2_678_400_000, burst: 1e9, shaping: true }))).toBeUndefined();
  });

  it('stores reject bad costs, identities and quotas with the field', () => {
    const store = new MemoryStore();
    const limits = [{ name: 'a', identity: 'key:1', params: { algorithm: 'gcra' as const, limit: 1, windowMs: 10 } }];
    expect(fieldOf(() => store.checkSync({ limits, cost: -1 }))).toBe('cost');
    expect(fieldOf(() => store.checkSync({ limits: [{ ...limits[0], identity: 'a{b}' }] }))).toBe('identity');
    expect(fieldOf(() => store.checkSync({ limits, quota: { identity: 'key:1', limit: 5, period: 'month', resetDay: 29 } }))).toBe('quota.resetDay');
  });
});
