import { z } from 'zod';

export const ALGORITHMS = ['token_bucket', 'leaky_bucket', 'fixed_window', 'sliding_log', 'sliding_window', 'gcra'] as const;
export const LIMIT_SCOPES = ['key', 'owner', 'global'] as const;
export const FAIL_MODES = ['closed', 'open', 'local'] as const;
export const QUOTA_PERIODS = ['day', 'month'] as const;

/** 31 days: the longest window a limit may have. */
export const MAX_WINDOW_MS = 2_678_400_000;
export const MAX_LIMITS_PER_PLAN = 8;

export const AlgorithmSchema = z.enum(ALGORITHMS);
export const LimitScopeSchema = z.enum(LIMIT_SCOPES);
export const FailModeSchema = z.enum(FAIL_MODES);

export const LimitInputSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must match /^[a-z][a-z0-9_-]{0,31}$/')
    // The rate-limit headers name the quota's item "quota": a limit of that name would collide with it.
    .refine((name) => name !== 'quota', '"quota" is reserved for the quota in the rate-limit headers'),
  algorithm: AlgorithmSchema,
  limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000_000, 'must be at most 1,000,000,000'),
  windowMs: z.number().int('must be a whole number of ms').min(1, 'must be at least 1 ms').max(MAX_WINDOW_MS, 'must be at most 31 days (2,678,400,000 ms)'),
  burst: z.number().int('must be a whole number').min(1, 'must be at least 1').max(1_000_000_000, 'must be at most 1,000,000,000').optional(),
  scope: LimitScopeSchema.default('key'),
  shaping: z.boolean().optional(),
});
export type LimitInput = z.input<typeof LimitInputSchema>;
export type Limit = z.output<typeof LimitInputSchema>;

/** A list of limits whose names are unique, so an override can name the limit it replaces. */
export const LimitListSchema = z
  .array(LimitInputSchema)
  .max(MAX_LIMITS_PER_PLAN)
  .superRefine((limits, ctx) => {
    const seen = new Set<string>();
    limits.forEach((limit, index) => {
      if (seen.has(limit.name)) {
        ctx.addIssue({ code: 'custom', path: [index, 'name'], message: `duplicate limit name "${limit.name}"` });
      }
      // Only a leaky bucket can delay a request until it fits; the engine refuses shaping elsewhere.
      if (limit.shaping === true && limit.algorithm !== 'leaky_bucket') {
        ctx.addIssue({ code: 'custom', path: [index, 'shaping'], message: 'applies to leaky_bucket only' });
      }
      seen.add(limit.name);
    });
  });

export const QuotaInputSchema = z
  .strictObject({
    limit: z.number().int('must be a whole number').min(1, 'must be at least 1').max(Number.MAX_SAFE_INTEGER, 'must be at most 9,007,199,254,740,991'),
    period: z.enum(QUOTA_PERIODS),
    resetDay: z.number().int('must be a whole number').min(1, 'must be a day from 1 to 28').max(28, 'must be a day from 1 to 28').optional(),
  })
  .superRefine((quota, ctx) => {
    if (quota.period === 'day' && quota.resetDay !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['resetDay'], message: 'resetDay applies to monthly quotas only' });
    }
  });
export type QuotaInput = z.input<typeof QuotaInputSchema>;

export interface Quota {
  limit: number;
  period: 'day' | 'month';
  resetDay: number;
}

/**
 * The limits a key really runs under: the plan's, with each key override replacing the plan
 * limit of the same name or adding a new one. Order: plan order, then added overrides.
 */
export function effectiveLimits(planLimits: readonly Limit[], overrides: readonly Limit[]): Limit[] {
  const byName = new Map(overrides.map((limit) => [limit.name, limit]));
  const merged = planLimits.map((limit) => byName.get(limit.name) ?? limit);
  const planNames = new Set(planLimits.map((limit) => limit.name));
  for (const override of overrides) if (!planNames.has(override.name)) merged.push(override);
  return merged;
}
