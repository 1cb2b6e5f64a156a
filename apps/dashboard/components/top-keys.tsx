'use client';

import Link from 'next/link';
import { useState } from 'react';
import { formatNumber, formatPercent } from '@/lib/format';
import { useApiResource } from '@/lib/use-api-resource';
import { useRefreshingNow } from '@/lib/use-refreshing-now';
import { RANGES, rejectedOf, type RangeId, type UsageTop } from '@/lib/usage';
import { EmptyState } from './empty-state';
import { LoadingState } from './loading-state';
import { ProblemAlert } from './problem-alert';
import { RangePicker } from './range-picker';

/**
 * The busiest keys in a range (GET /v1/usage/top), with how much of their traffic got a 429.
 * Every refresh asks for the window ending now, so "last hour" stays an hour long.
 */
export function TopKeys({ refreshMs = 15_000 }: { refreshMs?: number }) {
  const [range, setRange] = useState<RangeId>('24h');
  const { now, restart } = useRefreshingNow(refreshMs);
  const from = new Date(now - RANGES[range].ms).toISOString();
  const to = new Date(now).toISOString();
  const { state } = useApiResource<UsageTop>(`/v1/usage/top?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}&limit=10`);

  const names = (state.data?.items ?? []).map((item) => item.name).filter((name): name is string => name !== null);
  const sharedNames = new Set(names.filter((name, i) => names.indexOf(name) !== i));

  const changeRange = (next: RangeId) => {
    setRange(next);
    restart();
  };

  return (
    <section className="card" aria-labelledby="top-keys-title">
      <div className="card__header">
        <h2 className="section-title" id="top-keys-title">
          Top keys
        </h2>
        <RangePicker value={range} onChange={changeRange} />
      </div>
      {state.status === 'error' && <ProblemAlert problem={state.problem} title={state.data ? 'Top keys could not be refreshed: showing the last figures.' : 'Top keys could not be loaded.'} />}
      {!state.data ? (
        state.status === 'error' ? null : (
          <LoadingState label="Loading top keys…" />
        )
      ) : state.data.items.length === 0 ? (
        <EmptyState title="No traffic yet">Keys appear here once they verify requests.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table" data-testid="top-keys">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col" className="num">
                  Requests
                </th>
                <th scope="col" className="num">
                  Valid
                </th>
                <th scope="col" className="num">
                  Answered 429
                </th>
                <th scope="col" className="num">
                  429 share
                </th>
              </tr>
            </thead>
            <tbody>
              {state.data.items.map((item) => (
                <tr key={item.keyId}>
                  <td>
                    {item.name === null ? <span className="muted">deleted key</span> : <Link href={`/keys/${item.keyId}`}>{item.name}</Link>}
                    {/* Two keys of one name (a rotation's old and new key) are told apart by id. */}
                    {item.name !== null && sharedNames.has(item.name) && <div className="mono muted small">{item.keyId}</div>}
                  </td>
                  <td className="num">{formatNumber(item.total)}</td>
                  <td className="num">{formatNumber(item.valid)}</td>
                  <td className="num">{formatNumber(rejectedOf(item))}</td>
                  <td className="num">{formatPercent(rejectedOf(item), item.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
