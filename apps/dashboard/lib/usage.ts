/** Helpers over the usage API's shapes (GET /v1/usage, /v1/usage/top, /v1/usage/stream). */

import { USAGE_OUTCOMES, USAGE_STEP_MS, type UsageCounts, type UsageGranularity, type UsagePoint } from '@tollgate/contracts';

export type { UsagePoint, UsageSeries, UsageTop, UsageTopItem } from '@tollgate/contracts';
export type Counts = UsageCounts;
export type Granularity = UsageGranularity;
export type Outcome = (typeof USAGE_OUTCOMES)[number];
export const OUTCOMES = USAGE_OUTCOMES;

export const OUTCOME_LABELS: Record<Outcome, string> = {
  valid: 'Valid',
  rateLimited: 'Rate-limited',
  quotaExceeded: 'Quota exceeded',
  invalid: 'Invalid',
};

/** CSS variables from globals.css, so the chart follows the light/dark theme. */
export const OUTCOME_COLORS: Record<Outcome, string> = {
  valid: 'var(--chart-valid)',
  rateLimited: 'var(--chart-rate-limited)',
  quotaExceeded: 'var(--chart-quota)',
  invalid: 'var(--chart-invalid)',
};

export const RANGES = {
  '1h': { label: 'Last hour', ms: 3_600_000, granularity: 'minute' },
  '24h': { label: 'Last 24 hours', ms: 86_400_000, granularity: 'hour' },
  '7d': { label: 'Last 7 days', ms: 7 * 86_400_000, granularity: 'hour' },
} as const satisfies Record<string, { label: string; ms: number; granularity: Granularity }>;
export type RangeId = keyof typeof RANGES;
export const RANGE_IDS = Object.keys(RANGES) as RangeId[];

export function emptyCounts(): Counts {
  return { valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 };
}

export function sumCounts(points: readonly Partial<Counts>[]): Counts {
  const total = emptyCounts();
  for (const point of points) for (const outcome of OUTCOMES) total[outcome] += Number(point[outcome] ?? 0);
  return total;
}

export function totalOf(counts: Counts): number {
  return counts.valid + counts.rateLimited + counts.quotaExceeded + counts.invalid;
}

/** Requests answered 429: rate-limited plus quota-exceeded. */
export function rejectedOf(counts: Counts): number {
  return counts.rateLimited + counts.quotaExceeded;
}

/** The query for a range ending now, with an optional key/owner/plan filter. */
export function usageQuery(range: RangeId, filter: { keyId?: string }, now = Date.now()): URLSearchParams {
  const spec = RANGES[range];
  const params = new URLSearchParams({ from: new Date(now - spec.ms).toISOString(), to: new Date(now).toISOString(), granularity: spec.granularity });
  if (filter.keyId) params.set('keyId', filter.keyId);
  return params;
}

/**
 * The window a usage query was made for, read back from its path (`/v1/usage?from&to&...`), so
 * a chart is always drawn over the range its data belongs to, even while a new range loads.
 */
export function windowOfQuery(path: string): { range: RangeId; from: number; to: number } | null {
  const params = new URLSearchParams(path.slice(path.indexOf('?') + 1));
  const from = Date.parse(params.get('from') ?? '');
  const to = Date.parse(params.get('to') ?? '');
  const range = RANGE_IDS.find((id) => RANGES[id].ms === to - from);
  return range && !Number.isNaN(from) ? { range, from, to } : null;
}

/** One `data:` event of /v1/usage/stream: the decisions counted since the previous event (a delta). */
export function parseStreamEvent(data: string): { ts: number; counts: Counts } | null {
  let event: Partial<UsagePoint>;
  try {
    event = JSON.parse(data) as Partial<UsagePoint>;
  } catch {
    return null;
  }
  if (typeof event !== 'object' || event === null || !OUTCOMES.some((outcome) => typeof event[outcome] === 'number')) return null;
  const ts = event.ts ? new Date(event.ts).getTime() : Number.NaN;
  return { ts: Number.isNaN(ts) ? Date.now() : ts, counts: sumCounts([event]) };
}

/** The API may leave out empty buckets: put zeros in so the time axis is even. */
export function fillSeries(series: readonly UsagePoint[], granularity: Granularity, from: number, to: number): UsagePoint[] {
  const step = USAGE_STEP_MS[granularity];
  const byTs = new Map<number, UsagePoint>();
  for (const point of series) {
    const ts = new Date(point.ts).getTime();
    if (!Number.isNaN(ts)) byTs.set(Math.floor(ts / step) * step, { ...emptyCounts(), ...point });
  }
  const filled: UsagePoint[] = [];
  for (let ts = Math.floor(from / step) * step; ts <= to; ts += step) {
    filled.push(byTs.get(ts) ?? { ts: new Date(ts).toISOString(), ...emptyCounts() });
    byTs.delete(ts);
  }
  // Anything the grid missed (e.g. day buckets aligned to another zone) still shows.
  return [...filled, ...byTs.values()].sort((a, b) => a.ts.localeCompare(b.ts));
}
