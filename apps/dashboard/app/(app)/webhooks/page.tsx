import type { Webhook } from '@tollgate/contracts';
import type { Metadata } from 'next';
import { EmptyState } from '@/components/empty-state';
import { PageHeader } from '@/components/page-header';
import { ProblemAlert } from '@/components/problem-alert';
import { canWrite, requireUser } from '@/lib/current-user';
import { formatDateTime } from '@/lib/format';
import { serverGet } from '@/lib/server-api';
import { EVENT_LABELS } from '@/lib/webhooks';
import { CreateWebhookButton } from './create-webhook-button';
import { DeleteWebhookButton } from './delete-webhook-button';
import { WebhookDeliveries } from './webhook-deliveries';

export const metadata: Metadata = { title: 'Webhooks' };

export default async function WebhooksPage() {
  const me = await requireUser();
  const webhooks = await serverGet<{ items: Webhook[] }>('/v1/webhooks');
  const writable = canWrite(me);

  return (
    <div className="stack stack--lg">
      <PageHeader
        title="Webhooks"
        description="Signed HTTP callbacks when a key nears its quota, is about to expire or gets rate limited. Failed deliveries are retried with backoff."
        actions={writable ? <CreateWebhookButton /> : undefined}
      />
      {!webhooks.ok ? (
        <ProblemAlert problem={webhooks.problem} title="Webhooks could not be loaded." />
      ) : webhooks.data.items.length === 0 ? (
        <div className="card">
          <EmptyState title="No webhooks yet">{writable ? 'Add an endpoint to be told about quota thresholds, expiring keys and rate limiting.' : 'An admin can add webhooks.'}</EmptyState>
        </div>
      ) : (
        webhooks.data.items.map((webhook) => (
          <section key={webhook.id} className="card stack" aria-label={`Webhook ${webhook.url}`} data-testid="webhook">
            <div className="cluster cluster--between" style={{ alignItems: 'flex-start' }}>
              <div style={{ minWidth: 0, flex: '1 1 16rem' }}>
                <h2 className="section-title mono webhook-url">{webhook.url}</h2>
                <span className={webhook.enabled ? 'badge badge--success' : 'badge badge--danger'}>{webhook.enabled ? 'enabled' : 'disabled'}</span>
              </div>
              {writable && <DeleteWebhookButton webhookId={webhook.id} url={webhook.url} />}
            </div>
            <dl className="kv">
              <dt>Events</dt>
              <dd>
                <div className="cluster" style={{ gap: 'var(--space-1)' }}>
                  {webhook.events.map((event) => (
                    <span key={event} className="badge mono" title={EVENT_LABELS[event]?.title}>
                      {event}
                    </span>
                  ))}
                </div>
              </dd>
              <dt>Quota thresholds</dt>
              <dd>{webhook.events.includes('quota.threshold') ? webhook.thresholds.map((t) => `${t} %`).join(', ') : <span className="muted">not subscribed</span>}</dd>
              <dt>Created</dt>
              <dd>{formatDateTime(webhook.createdAt)}</dd>
              <dt>Id</dt>
              <dd className="mono">{webhook.id}</dd>
            </dl>
            <div>
              <h3 className="section-title" style={{ fontSize: 'var(--text-base)' }}>
                Recent deliveries
              </h3>
              <WebhookDeliveries webhookId={webhook.id} />
            </div>
          </section>
        ))
      )}
    </div>
  );
}
