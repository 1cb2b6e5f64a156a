'use client';

import { useState } from 'react';
import { BROWSER_API_BASE } from '@/lib/config';
import type { ProblemInfo } from '@/lib/problem';
import { useApiResource, type ResourceState } from '@/lib/use-api-resource';
import { LIVE_WINDOW_S, useLiveUsage, type LiveUsage } from '@/lib/use-live-usage';
import { useRefreshingNow } from '@/lib/use-refreshing-now';
import { fillSeries, RANGES, sumCounts, totalOf, usageQuery, windowOfQuery, type RangeId, type UsageSeries } from '@/lib/usage';
import { LoadingState } from './loading-state';
import { ProblemAlert } from './problem-alert';
import { RangePicker } from './range-picker';
import { UsageChart } from './usage-chart';
import { UsageSummary } from './usage-summary';

const LIVE_BADGE: Record<LiveUsage['status'], string> = { off: '', connecting: 'connecting…', open: 'live', disconnected: 'disconnected' };

/**
 * Requests over time for everything or one key: a range picker (1h/24h/7d) over GET /v1/usage,
 * refreshed every `refreshMs`, and a live mode fed by the SSE stream.
 */
export function UsagePanel({ keyId, title = 'Requests', refreshMs = 15_000 }: { keyId?: string; title?: string; refreshMs?: number }) {
  const [range, setRange] = useState<RangeId>('1h');
  const [live, setLive] = useState(false);
  const { now, restart } = useRefreshingNow(refreshMs, live);

  const query = usageQuery(range, { keyId }, now);
  const { state } = useApiResource<UsageSeries>(live ? null : `/v1/usage?${query}`);
  const stream = useLiveUsage(live, keyId);

  const changeRange = (next: RangeId) => {
    setRange(next);
    restart();
  };

  return (
    <section className="card" aria-labelledby={`usage-title-${keyId ?? 'all'}`}>
      <div className="card__header">
        <h2 className="section-title" id={`usage-title-${keyId ?? 'all'}`}>
          {title}
          {live && (
            <span className="badge" style={{ marginLeft: 8 }}>
              <span className="live-dot" aria-hidden="true" />
              {LIVE_BADGE[stream.status]}
            </span>
          )}
        </h2>
        <div className="cluster">
          <RangePicker value={range} onChange={changeRange} disabled={live} />
          {!live && (
            <a className="button button--ghost button--small" href={`${BROWSER_API_BASE}/v1/usage/export.csv?${query}`} download>
              Export CSV
            </a>
          )}
          <button type="button" className="button button--secondary button--small" aria-pressed={live} onClick={() => setLive((v) => !v)}>
            {live ? 'Stop live' : 'Live'}
          </button>
        </div>
      </div>
      {live ? <LiveBody stream={stream} /> : <RangeBody state={state} range={range} />}
    </section>
  );
}

function LiveBody({ stream }: { stream: LiveUsage }) {
  return (
    <div className="stack">
      {stream.status === 'disconnected' && <LiveDisconnected problem={stream.problem} onReconnect={stream.reconnect} />}
      <UsageSummary totals={sumCounts(stream.points)} />
      <UsageChart points={stream.points} tickStyle="second" label={`Requests per second, last ${LIVE_WINDOW_S} seconds`} />
    </div>
  );
}

function LiveDisconnected({ problem, onReconnect }: { problem: ProblemInfo | null; onReconnect: () => void }) {
  const shown = problem ?? { status: 0, code: 'STREAM_CLOSED', title: 'Stream closed', detail: 'The connection to the live usage stream closed.', errors: [] };
  return (
    <div className="stack" data-testid="live-disconnected">
      <ProblemAlert problem={shown} title="Live updates disconnected" />
      <div>
        <button type="button" className="button button--small" onClick={onReconnect}>
          Reconnect
        </button>
      </div>
    </div>
  );
}

/**
 * The last answer, drawn over the window it was fetched for: after a range switch, until the new
 * range arrives, with a note saying so (the picker already shows the new range).
 */
function RangeBody({ state, range }: { state: ResourceState<UsageSeries>; range: RangeId }) {
  const data = state.data;
  const fetched = state.path ? windowOfQuery(state.path) : null;
  if (!data || !fetched) {
    return state.status === 'error' ? <ProblemAlert problem={state.problem} title="Usage could not be loaded." /> : <LoadingState label="Loading usage…" />;
  }
  const points = fillSeries(data.series, data.granularity, fetched.from, fetched.to);
  const totals = data.totals;
  const switching = fetched.range !== range;
  return (
    <div className="stack">
      {state.status === 'error' && <ProblemAlert problem={state.problem} title={`Usage could not be ${switching ? 'loaded' : 'refreshed'}: showing the last figures (${RANGES[fetched.range].label.toLowerCase()}).`} />}
      {switching && state.status !== 'error' && (
        <p className="hint" role="status" data-testid="usage-switching">
          Loading {RANGES[range].label.toLowerCase()}… showing {RANGES[fetched.range].label.toLowerCase()} until it arrives.
        </p>
      )}
      <UsageSummary totals={totals} />
      <UsageChart points={points} tickStyle={data.granularity} range={fetched.range} label={`Requests per ${data.granularity}, ${RANGES[fetched.range].label.toLowerCase()}`} />
      {totalOf(totals) === 0 && <p className="hint">No requests in this range yet.</p>}
    </div>
  );
}
