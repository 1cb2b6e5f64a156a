'use client';

import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatNumber } from '@/lib/format';
import { OUTCOME_COLORS, OUTCOME_LABELS, OUTCOMES, sumCounts, totalOf, type Granularity, type RangeId, type UsagePoint } from '@/lib/usage';

export type TickStyle = Granularity | 'second';

function tickFormatter(style: TickStyle, spanDays: boolean) {
  return (ts: string) => {
    const date = new Date(ts);
    if (style === 'second') return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
    if (style === 'day' || (style === 'hour' && spanDays)) return date.toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' });
    return date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  };
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
          <XAxis dataKey="ts" tickFormatter={format} minTickGap={40} tick={{ fill: 'var(--text-muted)' }} axisLine={{ stroke: 'var(--border)' }} tickLine={false} />
          <YAxis allowDecimals={false} width={48} tickFormatter={(v: number) => formatNumber(v)} tick={{ fill: 'var(--text-muted)' }} axisLine={false} tickLine={false} />
          <Tooltip
            labelFormatter={(ts) => new Date(String(ts)).toLocaleString()}
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
