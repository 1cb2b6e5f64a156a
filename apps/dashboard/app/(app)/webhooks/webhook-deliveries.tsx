'use client';

import type { WebhookDelivery } from '@tollgate/contracts';
import { EmptyState } from '@/components/empty-state';
import { LoadingState } from '@/components/loading-state';
import { ProblemAlert } from '@/components/problem-alert';
import { formatDateTime } from '@/lib/format';
import { useApiResource } from '@/lib/use-api-resource';
import { DELIVERY_BADGE } from '@/lib/webhooks';

/** The last deliveries of one webhook (newest first), refreshed while the page is open. */
export function WebhookDeliveries({ webhookId, refreshMs = 10_000 }: { webhookId: string; refreshMs?: number }) {
  const { state, reload } = useApiResource<{ items: WebhookDelivery[] }>(`/v1/webhooks/${encodeURIComponent(webhookId)}/deliveries`, refreshMs);

  if (state.status === 'loading') return <LoadingState label="Loading deliveries…" />;
  const items = state.data?.items;
  return (
    <div className="stack">
      {state.status === 'error' && (
        <div className="stack">
          <ProblemAlert problem={state.problem} title="Deliveries could not be loaded." />
          <div>
            <button type="button" className="button button--secondary button--small" onClick={reload}>
              Try again
            </button>
          </div>
        </div>
      )}
      {items && items.length === 0 && <EmptyState title="No deliveries yet">Events this webhook subscribes to are listed here as they are sent.</EmptyState>}
      {items && items.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="webhook-deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Attempts
                </th>
                <th scope="col">Last response</th>
                <th scope="col">Created</th>
                <th scope="col">Delivered / next try</th>
              </tr>
            </thead>
            <tbody>
              {items.map((d) => (
                <tr key={d.id}>
                  <td className="mono nowrap">{d.event}</td>
                  <td>
                    <span className={DELIVERY_BADGE[d.status]} data-testid="delivery-status">
                      {d.status}
                    </span>
                  </td>
                  <td className="num">{d.attempts}</td>
                  <td>
                    {d.lastStatusCode !== null && <span className="mono">HTTP {d.lastStatusCode}</span>}
                    {d.lastError && <div className="muted small delivery-error">{d.lastError}</div>}
                    {d.lastStatusCode === null && !d.lastError && <span className="muted">—</span>}
                  </td>
                  <td className="nowrap">{formatDateTime(d.createdAt)}</td>
                  <td className="nowrap">
                    {d.deliveredAt ? formatDateTime(d.deliveredAt) : d.nextAttemptAt ? <span className="muted">next {formatDateTime(d.nextAttemptAt)}</span> : <span className="muted">gave up</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
