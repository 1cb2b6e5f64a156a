import { describe, expect, it } from 'vitest';
import { fieldErrors } from './errors';
import { KeyInputSchema } from './keys';
import { effectiveLimits, LimitListSchema, type Limit } from './limits';
import { PlanInputSchema } from './plans';

const burst: Limit = { name: 'burst', algorithm: 'token_bucket', limit: 10, windowMs: 1000, scope: 'key' };
const sustained: Limit = { name: 'sustained', algorithm: 'sliding_window', limit: 100, windowMs: 60_000, scope: 'key' };

describe('effectiveLimits', () => {
  it('replaces the plan limit of the same name and appends new ones, in plan order', () => {
    const override = { ...burst, limit: 50 };
    const extra: Limit = { name: 'daily', algorithm: 'fixed_window', limit: 5000, windowMs: 86_400_000, scope: 'owner' };
    expect(effectiveLimits([burst, sustained], [extra, override])).toEqual([override, sustained, extra]);
    expect(effectiveLimits([burst], [])).toEqual([burst]);
  });
});

describe('contract schemas', () => {
  it('default scope to key and failMode to closed', () => {
    const plan = PlanInputSchema.parse({ name: 'free', limits: [{ name: 'burst', algorithm: 'gcra', limit: 5, windowMs: 1000 }] });
    expect(plan.failMode).toBe('closed');
    expect(plan.limits[0].scope).toBe('key');
  });

  it('name every bad field with a dotted path', () => {
    const result = LimitListSchema.safeParse([{ ...burst, limit: 0 }, { ...burst, windowMs: 2_678_400_001 }]);
    expect(result.success).toBe(false);
    const paths = fieldErrors(result.error!).map((error) => error.path);
    expect(paths).toEqual(expect.arrayContaining(['0.limit', '1.windowMs', '1.name']));
  });

  it('reserve the limit name "quota" (the headers name the quota so)', () => {
    const result = LimitListSchema.safeParse([{ ...burst, name: 'quota' }]);
    expect(result.success).toBe(false);
    expect(fieldErrors(result.error!)).toEqual([{ path: '0.name', message: expect.stringMatching(/reserved/) }]);
    expect(LimitListSchema.safeParse([{ ...burst, name: 'quotas' }]).success).toBe(true);
  });

  it('words range errors in the field\'s own terms, not the validator\'s', () => {
    const result = LimitListSchema.safeParse([{ ...burst, windowMs: 2_678_400_001, limit: 0 }]);
    expect(fieldErrors(result.error!)).toEqual(
      expect.arrayContaining([
        { path: '0.windowMs', message: 'must be at most 31 days (2,678,400,000 ms)' },
        { path: '0.limit', message: 'must be at least 1' },
      ]),
    );
  });

  it('refuses shaping on any algorithm but leaky_bucket, naming the field', () => {
    const result = LimitListSchema.safeParse([{ ...burst, algorithm: 'leaky_bucket', shaping: true }, { ...burst, name: 'other', algorithm: 'token_bucket', shaping: true }]);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([['1.shaping', 'applies to leaky_bucket only']]);
    expect(LimitListSchema.safeParse([{ ...burst, algorithm: 'fixed_window', shaping: false }]).success).toBe(true);
  });

  it('refuse unknown fields and oversized meta', () => {
    const result = KeyInputSchema.safeParse({ name: 'k', planId: 'plan_1', colour: 'red', meta: { blob: 'x'.repeat(5000) } });
    expect(result.success).toBe(false);
    const errors = fieldErrors(result.error!);
    expect(errors).toEqual(expect.arrayContaining([{ path: 'colour', message: 'unknown field' }, expect.objectContaining({ path: 'meta' })]));
  });
});
