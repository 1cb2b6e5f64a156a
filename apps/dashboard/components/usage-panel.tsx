'use client';

import { useEffect, useState } from 'react';
import { BROWSER_API_BASE } from '@/lib/config';
import { useApiResource, type ResourceState } from '@/lib/use-api-resource';
import { LIVE_WINDOW_S, useLiveUsage } from '@/lib/use-live-usage';
import { fillSeries, RANGES, sumCounts, totalOf, usageQuery, type RangeId, type UsageSeries } from '@/lib/usage';
import { LoadingState } from './loading-state';
import { RangePicker } from './range-picker';
import { UsageChart } from './usage-chart';
import { UsageSummary } from './usage-summary';
import { UsageUnavailable } from './usage-unavailable';

/**
 * Requests over time for everything or one key: a range picker (1h/24h/7d) over GET /v1/usage,
 * refreshed every `refreshMs`, and a live mode fed by the SSE stream.
 */
export function UsagePanel({ keyId, title = 'Requests', refreshMs = 15_000 }: { keyId?: string; title?: string; refreshMs?: number }) {
  const [range, setRange] = useState<RangeId>('1h');
  const [live, setLive] = useState(false);
  const [anchor, setAnchor] = useState(() => Date.now());

  useEffect(() => {
    if (live) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setAnchor(Date.now());
    }, refreshMs);
    return () => clearInterval(timer);
  }, [live, refreshMs]);

  const query = usageQuery(range, { keyId }, anchor);
  const { state } = useApiResource<UsageSeries>(live ? null : `/v1/usage?${query}`);
  const stream = useLiveUsage(live, keyId);

  const changeRange = (next: RangeId) => {
    setRange(next);
    setAnchor(Date.now());
  };

  return (
    <section className="card" aria-labelledby={`usage-title-${keyId ?? 'all'}`}>
      <div className="card__header">
        <h2 className="section-title" id={`usage-title-${keyId ?? 'all'}`}>
          {title}
          {live && (
            <span className="badge" style={{ marginLeft: 8 }}>
              <span className="live-dot" aria-hidden="true" />
              {stream.status === 'open' ? 'live' : stream.status === 'connecting' ? 'connecting…' : 'stream unavailable'}
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
      {live ? <LiveBody status={stream.status} points={stream.points} /> : <RangeBody state={state} range={range} anchor={anchor} />}
    </section>
  );
}

function LiveBody({ status, points }: ReturnType<typeof useLiveUsage>) {
  if (status === 'unavailable') {
    return <UsageUnavailable what="The live stream" problem={{ status: 404, code: 'NOT_FOUND', title: 'Not found', detail: '', errors: [] }} />;
  }
  return (
    <div className="stack">
      <UsageSummary totals={sumCounts(points)} />
      <UsageChart points={points} tickStyle="second" label={`Requests per second, last ${LIVE_WINDOW_S} seconds`} />
    </div>
  );
}

function RangeBody({ state, range, anchor }: { state: ResourceState<UsageSeries>; range: RangeId; anchor: number }) {
  const data = state.data;
  if (!data) {
    return state.status === 'error' ? <UsageUnavailable what="Usage" problem={state.problem} /> : <LoadingState label="Loading usage…" />;
  }
  const spec = RANGES[range];
  const points = fillSeries(data.series, data.granularity, anchor - spec.ms, anchor);
  const totals = data.totals;
  return (
    <div className="stack">
      {state.status === 'error' && <UsageUnavailable what="Fresh usage" problem={state.problem} />}
      <UsageSummary totals={totals} />
      <UsageChart points={points} tickStyle={data.granularity} label={`Requests per ${data.granularity}, ${spec.label.toLowerCase()}`} />
      {totalOf(totals) === 0 && <p className="hint">No requests in this range yet.</p>}
    </div>
  );
}
