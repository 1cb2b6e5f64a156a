import { USAGE_DEFAULT_RANGE_MS, USAGE_MAX_POINTS, USAGE_STEP_MS, type UsageGranularity } from '@tollgate/contracts';
import { ApiError } from '../http/api-error';

/** The one source of these lengths in the usage and webhooks code (UTC buckets: no DST, no leap seconds). */
export const MINUTE_MS = USAGE_STEP_MS.minute;
export const HOUR_MS = USAGE_STEP_MS.hour;
export const DAY_MS = USAGE_STEP_MS.day;

/** How long rollups are kept, per granularity (ms). Day rows are kept forever. */
export interface UsageRetention {
  minuteMs: number;
  hourMs: number;
  /** UsageFlush markers; must exceed the Redis bucket TTL (2 days) so no snapshot outlives its marker. */
  flushMarkerMs: number;
}

/** The defaults of USAGE_RETENTION_MINUTE_DAYS (7) and USAGE_RETENTION_HOUR_DAYS (90); markers 3 days (not configurable). */
export const DEFAULT_RETENTION: Readonly<UsageRetention> = { minuteMs: 7 * DAY_MS, hourMs: 90 * DAY_MS, flushMarkerMs: 3 * DAY_MS };

/** Retention from the parsed environment (see config/env.ts). */
export function retentionFromEnv(env: { USAGE_RETENTION_MINUTE_DAYS: number; USAGE_RETENTION_HOUR_DAYS: number }): UsageRetention {
  return { minuteMs: env.USAGE_RETENTION_MINUTE_DAYS * DAY_MS, hourMs: env.USAGE_RETENTION_HOUR_DAYS * DAY_MS, flushMarkerMs: DEFAULT_RETENTION.flushMarkerMs };
}

export function floorTo(ms: number, granularity: UsageGranularity): number {
  const step = USAGE_STEP_MS[granularity];
  return Math.floor(ms / step) * step;
}

export interface ResolvedRange {
  granularity: UsageGranularity;
  /** As asked (or defaulted). */
  fromMs: number;
  toMs: number;
  /** The buckets answered: every bucket whose start is in [floor(from), to), i.e. [startMs, endMs). */
  startMs: number;
  endMs: number;
  points: number;
}

/** How a route turns a range into buckets when no granularity is asked, and how many it accepts. */
export interface RangeRules {
  pick(fromMs: number, toMs: number, nowMs: number, retention: UsageRetention): UsageGranularity;
  /** The longest range accepted, in buckets of the granularity (see USAGE_MAX_POINTS). */
  maxPoints: Readonly<Record<UsageGranularity, number>>;
}

/**
 * The granularity when none is asked: the finest one that still has rows for `from` (retention)
 * and keeps the answer small: minute up to 6 h, hour up to 14 days, else day.
 */
export function autoGranularity(fromMs: number, toMs: number, nowMs: number, retention: UsageRetention = DEFAULT_RETENTION): UsageGranularity {
  const span = toMs - fromMs;
  if (span <= 6 * HOUR_MS && fromMs >= nowMs - retention.minuteMs) return 'minute';
  if (span <= 14 * DAY_MS && fromMs >= nowMs - retention.hourMs) return 'hour';
  return 'day';
}

/** Top keys read the finest rollups that cover the range cheaply: minute up to 2 days, hour up to 60 days (within retention), else day. */
export function topGranularity(fromMs: number, toMs: number, nowMs: number, retention: UsageRetention = DEFAULT_RETENTION): UsageGranularity {
  if (toMs - fromMs <= 2 * DAY_MS && fromMs >= nowMs - retention.minuteMs) return 'minute';
  if (toMs - fromMs <= 60 * DAY_MS && fromMs >= nowMs - retention.hourMs) return 'hour';
  return 'day';
}

/** GET /v1/usage and export.csv: the series answers one point per bucket, so each granularity has a cap. */
export const SERIES_RULES: RangeRules = { pick: autoGranularity, maxPoints: USAGE_MAX_POINTS };

/**
 * GET /v1/usage/top sums the buckets, so only the span matters: topGranularity never picks minute
 * past 2 days or hour past 60 days, and day rows are capped at 731 (2 years) like the series.
 */
export const TOP_RULES: RangeRules = { pick: topGranularity, maxPoints: { minute: Infinity, hour: Infinity, day: USAGE_MAX_POINTS.day } };

const SPAN_OF_MAX: Record<UsageGranularity, string> = { minute: '1 day', hour: '60 days', day: '2 years' };

/** The bucket grid of a query; a range with more buckets than the rules allow is a 400. */
export function resolveRange(
  query: { from?: Date; to?: Date; granularity?: UsageGranularity },
  nowMs: number,
  retention: UsageRetention = DEFAULT_RETENTION,
  rules: RangeRules = SERIES_RULES,
): ResolvedRange {
  const toMs = query.to?.getTime() ?? nowMs;
  const fromMs = query.from?.getTime() ?? toMs - USAGE_DEFAULT_RANGE_MS;
  if (fromMs >= toMs) throw ApiError.validation([{ path: query.from ? 'query.from' : 'query.to', message: 'must be before to (from defaults to to - 24h)' }]);
  const granularity = query.granularity ?? rules.pick(fromMs, toMs, nowMs, retention);
  const step = USAGE_STEP_MS[granularity];
  const startMs = floorTo(fromMs, granularity);
  const endMs = floorTo(toMs - 1, granularity) + step;
  const points = (endMs - startMs) / step;
  const max = rules.maxPoints[granularity];
  // The range's length is capped, not the buckets it touches: 24 h that do not start on a minute
  // touch 1441 minute buckets, and the default range (the 24 h before now) must be answerable.
  if (toMs - fromMs > max * step) {
    const path = query.granularity ? 'query.granularity' : 'query.from';
    const length = `${+((toMs - fromMs) / step).toFixed(2)} ${granularity}s`;
    throw ApiError.validation(
      [{ path, message: `the range is ${length} long; at most ${max} ${granularity}s (${SPAN_OF_MAX[granularity]}) per request at this granularity` }],
      `Range too large for granularity ${granularity}: ${length}, at most ${max} (${SPAN_OF_MAX[granularity]}).`,
    );
  }
  // An explicit granularity for a range its rows no longer cover would answer zeros that read as
  // "no traffic": say they were pruned instead (the automatic choice already goes coarser).
  if (query.granularity !== undefined && granularity !== 'day') {
    const keptMs = granularity === 'minute' ? retention.minuteMs : retention.hourMs;
    if (startMs < floorTo(nowMs - keptMs, granularity)) {
      const days = +(keptMs / DAY_MS).toFixed(2);
      throw ApiError.validation(
        [{ path: 'query.granularity', message: `${granularity} rows are kept ${days} days, and this range starts before that: ask for ${granularity === 'minute' ? 'hour or day' : 'day'} granularity, or leave it out` }],
        `Usage by the ${granularity} is kept ${days} days; the range starts earlier.`,
      );
    }
  }
  return { granularity, fromMs, toMs, startMs, endMs, points };
}
