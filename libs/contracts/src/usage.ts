import { z } from 'zod';
import { queryInt } from './query';

/** The four outcomes every decision is metered as. */
export const USAGE_OUTCOMES = ['valid', 'rateLimited', 'quotaExceeded', 'invalid'] as const;
export type UsageOutcome = (typeof USAGE_OUTCOMES)[number];

export const USAGE_GRANULARITIES = ['minute', 'hour', 'day'] as const;
export type UsageGranularity = (typeof USAGE_GRANULARITIES)[number];

/** Bucket length of each granularity, in ms (UTC-aligned; days are UTC days). */
export const USAGE_STEP_MS: Readonly<Record<UsageGranularity, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * The longest range one answer may cover, in buckets of its granularity: minute -> 1 day, hour ->
 * 60 days, day -> 731 days (2 years). A longer range is a 400, never a slow answer. A range of
 * exactly that length that does not start on a bucket edge touches one bucket more (the default
 * 24 h before now in minutes: 1441), and is answered.
 */
export const USAGE_MAX_POINTS: Readonly<Record<UsageGranularity, number>> = { minute: 1440, hour: 1440, day: 731 };

/** Default range when `from` is omitted: the 24 hours before `to`. */
export const USAGE_DEFAULT_RANGE_MS = 86_400_000;

const IdSchema = z.string().min(1).max(128);

/** ISO 8601 date-time with offset (`2026-01-01T00:00:00Z`) or a plain date (`2026-01-01`, UTC midnight). */
const InstantSchema = z
  .string()
  .max(64)
  .refine((value) => /^\d{4}-\d{2}-\d{2}$/.test(value) || z.iso.datetime({ offset: true }).safeParse(value).success, { message: 'must be an ISO 8601 date-time', abort: true })
  // Date would roll 2026-02-30 over to March 2: a day the month does not have is refused.
  .refine(isCalendarDay, 'must be a date that exists (that month has fewer days)')
  .transform((value) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value))
  .refine((date) => !Number.isNaN(date.getTime()), 'must be an ISO 8601 date-time');

function oneFilter(query: { keyId?: string; ownerId?: string; planId?: string }, ctx: z.RefinementCtx) {
  const given = (['keyId', 'ownerId', 'planId'] as const).filter((field) => query[field] !== undefined);
  if (given.length > 1) {
    for (const field of given) ctx.addIssue({ code: 'custom', path: [field], message: `at most one of keyId, ownerId, planId (got ${given.join(', ')})` });
  }
}

/** Whether the value's leading YYYY-MM-DD is a day of the calendar. */
function isCalendarDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function orderedRange(query: { from?: unknown; to?: unknown }, ctx: z.RefinementCtx) {
  // Runs even when a field failed its own checks (then it is still the string given): compare dates only.
  if (query.from instanceof Date && query.to instanceof Date && query.from.getTime() >= query.to.getTime()) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'must be before to' });
  }
}

/** GET /v1/usage and /v1/usage/export.csv. Range size vs granularity is checked by the API (needs "now"). */
export const UsageQuerySchema = z
  .strictObject({
    keyId: IdSchema.optional(),
    ownerId: IdSchema.optional(),
    planId: IdSchema.optional(),
    from: InstantSchema.optional(),
    to: InstantSchema.optional(),
    granularity: z.enum(USAGE_GRANULARITIES, { message: 'must be one of minute, hour, day' }).optional(),
  })
  .superRefine((query, ctx) => {
    oneFilter(query, ctx);
    orderedRange(query, ctx);
  });
export type UsageQuery = z.input<typeof UsageQuerySchema>;

/** GET /v1/usage/top. */
export const UsageTopQuerySchema = z
  .strictObject({
    from: InstantSchema.optional(),
    to: InstantSchema.optional(),
    limit: queryInt(1, 100, 10),
  })
  .superRefine(orderedRange);
export type UsageTopQuery = z.input<typeof UsageTopQuerySchema>;

/** GET /v1/usage/stream. */
export const UsageStreamQuerySchema = z
  .strictObject({
    keyId: IdSchema.optional(),
    ownerId: IdSchema.optional(),
    planId: IdSchema.optional(),
  })
  .superRefine(oneFilter);
export type UsageStreamQuery = z.input<typeof UsageStreamQuerySchema>;

export const UsageCountsSchema = z.object({
  valid: z.number().int(),
  rateLimited: z.number().int(),
  quotaExceeded: z.number().int(),
  invalid: z.number().int(),
});
export type UsageCounts = z.infer<typeof UsageCountsSchema>;

export const UsagePointSchema = UsageCountsSchema.extend({ ts: z.string() });
export type UsagePoint = z.infer<typeof UsagePointSchema>;

export const UsageSeriesSchema = z.object({
  granularity: z.enum(USAGE_GRANULARITIES),
  from: z.string(),
  to: z.string(),
  series: z.array(UsagePointSchema),
  totals: UsageCountsSchema,
});
export type UsageSeries = z.infer<typeof UsageSeriesSchema>;

export const UsageTopItemSchema = z.object({
  keyId: z.string(),
  /** null for a key that no longer exists. */
  name: z.string().nullable(),
  valid: z.number().int(),
  rateLimited: z.number().int(),
  quotaExceeded: z.number().int(),
  invalid: z.number().int(),
  total: z.number().int(),
});
export type UsageTopItem = z.infer<typeof UsageTopItemSchema>;
export const UsageTopSchema = z.object({ from: z.string(), to: z.string(), items: z.array(UsageTopItemSchema) });
export type UsageTop = z.infer<typeof UsageTopSchema>;

/** One `data:` event of /v1/usage/stream: the decisions counted since the previous event (a delta). */
export const UsageStreamEventSchema = UsagePointSchema;
export type UsageStreamEvent = z.infer<typeof UsageStreamEventSchema>;

export const USAGE_CSV_HEADER = 'ts,valid,rateLimited,quotaExceeded,invalid';
