'use client';

import Link from 'next/link';
import { useState } from 'react';
import { formatNumber, formatPercent } from '@/lib/format';
import { useApiResource } from '@/lib/use-api-resource';
import { RANGES, rejectedOf, type RangeId, type UsageTop } from '@/lib/usage';
import { EmptyState } from './empty-state';
import { LoadingState } from './loading-state';
import { RangePicker } from './range-picker';
import { UsageUnavailable } from './usage-unavailable';

/** The busiest keys in a range (GET /v1/usage/top), with how much of their traffic got a 429. */
export function TopKeys({ refreshMs = 15_000 }: { refreshMs?: number }) {
  const [range, setRange] = useState<RangeId>('24h');
  const [anchor] = useState(() => Date.now());
  const from = new Date(anchor - RANGES[range].ms).toISOString();
  const { state } = useApiResource<UsageTop>(`/v1/usage/top?from=${encodeURIComponent(from)}&limit=10`, refreshMs);

  return (
    <section className="card" aria-labelledby="top-keys-title">
      <div className="card__header">
        <h2 className="section-title" id="top-keys-title">
          Top keys
        </h2>
        <RangePicker value={range} onChange={setRange} />
      </div>
      {!state.data ? (
        state.status === 'error' ? (
          <UsageUnavailable what="Top keys" problem={state.problem} />
        ) : (
          <LoadingState label="Loading top keys…" />
        )
      ) : state.data.items.length === 0 ? (
        <EmptyState title="No traffic yet">Keys appear here once they verify requests.</EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table">
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
