import { USAGE_DEFAULT_RANGE_MS, USAGE_MAX_POINTS, USAGE_STEP_MS, type UsageGranularity } from '@tollgate/contracts';
import { ApiError } from '../http/api-error';

/** How long rollups are kept, per granularity (ms). Day rows are kept forever. */
export interface UsageRetention {
  minuteMs: number;
  hourMs: number;
  /** UsageFlush markers; must exceed the Redis bucket TTL (2 days) so no snapshot outlives its marker. */
  flushMarkerMs: number;
}

export const DAY_MS = 86_400_000;
export const DEFAULT_RETENTION: Readonly<UsageRetention> = { minuteMs: 7 * DAY_MS, hourMs: 90 * DAY_MS, flushMarkerMs: 3 * DAY_MS };

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

/**
 * The granularity when none is asked: the finest one that still has rows for `from` (retention)
 * and keeps the answer small: minute up to 6 h, hour up to 14 days, else day.
 */
export function autoGranularity(fromMs: number, toMs: number, nowMs: number, retention: UsageRetention = DEFAULT_RETENTION): UsageGranularity {
  const span = toMs - fromMs;
  if (span <= 6 * 3_600_000 && fromMs >= nowMs - retention.minuteMs) return 'minute';
  if (span <= 14 * DAY_MS && fromMs >= nowMs - retention.hourMs) return 'hour';
  return 'day';
}

/** The bucket grid of a query; a range with more than USAGE_MAX_POINTS buckets is a 400. */
export function resolveRange(
  query: { from?: Date; to?: Date; granularity?: UsageGranularity },
  nowMs: number,
  retention: UsageRetention = DEFAULT_RETENTION,
  autoPick: (fromMs: number, toMs: number, nowMs: number, retention: UsageRetention) => UsageGranularity = autoGranularity,
): ResolvedRange {
  const toMs = query.to?.getTime() ?? nowMs;
  const fromMs = query.from?.getTime() ?? toMs - USAGE_DEFAULT_RANGE_MS;
  if (fromMs >= toMs) throw ApiError.validation([{ path: query.from ? 'query.from' : 'query.to', message: 'must be before to (from defaults to to - 24h)' }]);
  const granularity = query.granularity ?? autoPick(fromMs, toMs, nowMs, retention);
  const step = USAGE_STEP_MS[granularity];
  const startMs = floorTo(fromMs, granularity);
  const endMs = floorTo(toMs - 1, granularity) + step;
  const points = (endMs - startMs) / step;
  const max = USAGE_MAX_POINTS[granularity];
  if (points > max) {
    const path = query.granularity ? 'query.granularity' : 'query.from';
    throw ApiError.validation(
      [{ path, message: `the range spans ${points} ${granularity} buckets; at most ${max} (${granularity === 'minute' ? '1 day' : granularity === 'hour' ? '60 days' : '2 years'}) per request` }],
      `Range too large for granularity ${granularity}: ${points} buckets, at most ${max}.`,
    );
  }
  return { granularity, fromMs, toMs, startMs, endMs, points };
}

/** Top keys read the finest rollups that cover the range cheaply: minute up to 2 days, hour within retention, else day. */
export function topGranularity(fromMs: number, toMs: number, nowMs: number, retention: UsageRetention = DEFAULT_RETENTION): UsageGranularity {
  if (toMs - fromMs <= 2 * DAY_MS && fromMs >= nowMs - retention.minuteMs) return 'minute';
  if (toMs - fromMs <= 60 * DAY_MS && fromMs >= nowMs - retention.hourMs) return 'hour';
  return 'day';
}
