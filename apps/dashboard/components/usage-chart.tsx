'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatDateTime, formatNumber, LOCALE } from '@/lib/format';
import { OUTCOME_COLORS, OUTCOME_LABELS, OUTCOMES, sumCounts, totalOf, type Granularity, type RangeId, type UsagePoint } from '@/lib/usage';

export type TickStyle = Granularity | 'second';

// UTC, like every other time on the dashboard: usage buckets and quota periods are UTC days and
// months, so a local-time axis would put a day's bars across two of its ticks.
const TICK_FORMATS = {
  second: new Intl.DateTimeFormat(LOCALE, { hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone: 'UTC' }),
  minute: new Intl.DateTimeFormat(LOCALE, { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }),
  withDay: new Intl.DateTimeFormat(LOCALE, { weekday: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }),
};

function tickFormatter(style: TickStyle, spanDays: boolean) {
  const format = style === 'second' ? TICK_FORMATS.second : style === 'day' || (style === 'hour' && spanDays) ? TICK_FORMATS.withDay : TICK_FORMATS.minute;
  return (ts: string) => format.format(new Date(ts));
}

/**
 * Requests over time, stacked by outcome (valid, rate-limited, quota-exceeded, invalid). The
 * figure carries what it plots as data attributes (the sum of its points, how many bars, their
 * granularity and range), for tests and anyone inspecting the page.
 */
export function UsageChart({ points, tickStyle, label, range }: { points: UsagePoint[]; tickStyle: TickStyle; label: string; range?: RangeId }) {
  const first = points[0] ? new Date(points[0].ts).getTime() : 0;
  const last = points.at(-1) ? new Date(points.at(-1)!.ts).getTime() : 0;
  const format = tickFormatter(tickStyle, last - first > 86_400_000);
  return (
    <figure
      className="chart"
      aria-label={label}
      role="img"
      style={{ margin: 0 }}
      data-testid="usage-chart"
      data-total={totalOf(sumCounts(points))}
      data-points={points.length}
      data-granularity={tickStyle}
      data-range={range ?? 'live'}
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} barCategoryGap={1}>
          <CartesianGrid strokeDasharray="3 3" stroke="var(--border)" vertical={false} />
          <XAxis
            dataKey="ts"
            tickFormatter={format}
            minTickGap={40}
            tick={{ fill: 'var(--text-muted)' }}
            axisLine={{ stroke: 'var(--border)' }}
            tickLine={false}
            height={42}
            // The ticks' zone, said once under them rather than on every tick.
            label={{ value: 'UTC', position: 'insideBottomRight', offset: 0, fill: 'var(--text-muted)', fontSize: 11 }}
          />
          <YAxis allowDecimals={false} width={48} tickFormatter={(v: number) => formatNumber(v)} tick={{ fill: 'var(--text-muted)' }} axisLine={false} tickLine={false} />
          <Tooltip
            labelFormatter={(ts) => (tickStyle === 'second' ? `${TICK_FORMATS.second.format(new Date(String(ts)))} UTC` : formatDateTime(String(ts)))}
            formatter={(value, name) => [formatNumber(Number(value)), OUTCOME_LABELS[name as keyof typeof OUTCOME_LABELS] ?? name]}
            contentStyle={{ background: 'var(--surface)', border: '1px solid var(--border)', borderRadius: 6 }}
            cursor={{ fill: 'var(--surface-2)' }}
          />
          <Legend formatter={(name) => OUTCOME_LABELS[name as keyof typeof OUTCOME_LABELS] ?? name} />
          {OUTCOMES.map((outcome) => (
            <Bar key={outcome} dataKey={outcome} stackId="requests" fill={OUTCOME_COLORS[outcome]} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
