import type { AuditEntry, Key, Plan } from '@tollgate/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { AuditTable } from '@/components/audit-table';
import { EmptyState } from '@/components/empty-state';
import { KeyActions } from '@/components/key-actions';
import { KeyStatusBadge } from '@/components/key-status-badge';
import { PageHeader } from '@/components/page-header';
import { ProblemAlert } from '@/components/problem-alert';
import { UsagePanel } from '@/components/usage-panel';
import { canWrite, requireUser } from '@/lib/current-user';
import { describeQuota } from '@/lib/describe-limit';
import { formatDateTime } from '@/lib/format';
import { loadOrNotFound, serverGet } from '@/lib/server-api';
import { KeyLimitsEditor } from './key-limits-editor';
import { KeyStatePanel } from './key-state-panel';
import { LimitsComparison } from './limits-comparison';

export const metadata: Metadata = { title: 'Key' };

export default async function KeyPage({ params }: { params: Promise<{ id: string }> }) {
  const me = await requireUser();
  const { id } = await params;
  const key = await loadOrNotFound<Key>(`/v1/keys/${encodeURIComponent(id)}`);
  if (!key.ok) {
    return <ProblemAlert problem={key.problem} title="This key could not be loaded." />;
  }
  const [plan, audit] = await Promise.all([
    serverGet<Plan>(`/v1/plans/${encodeURIComponent(key.data.planId)}`),
    serverGet<{ items: AuditEntry[]; nextCursor: string | null }>(`/v1/audit?targetId=${encodeURIComponent(id)}&limit=10`),
  ]);
  const k = key.data;
  const writable = canWrite(me);
  const now = Date.now();

  return (
    <div className="stack stack--lg">
      <PageHeader
        back={{ href: '/keys', label: 'All keys' }}
        title={k.name}
        description={
          <>
            <span className="mono">{k.start}…</span> · <KeyStatusBadge keyItem={k} now={now} />
          </>
        }
        actions={writable ? <KeyActions keyItem={k} now={now} afterRevoke="/keys" /> : undefined}
      />

      <section className="card" aria-labelledby="key-details-title">
        <h2 className="section-title" id="key-details-title" style={{ marginBottom: 12 }}>
          Details
        </h2>
        <dl className="kv">
          <dt>Id</dt>
          <dd className="mono">{k.id}</dd>
          <dt>Plan</dt>
          <dd>{plan.ok ? <Link href={`/plans/${plan.data.id}`}>{plan.data.name}</Link> : <span className="mono">{k.planId}</span>}</dd>
          <dt>Quota</dt>
          <dd>{plan.ok ? describeQuota(plan.data.quota) : '—'}</dd>
          <dt>Owner</dt>
          <dd className="mono">{k.ownerId ?? '—'}</dd>
          <dt>Expires</dt>
          <dd>{k.expiresAt ? formatDateTime(k.expiresAt) : 'Never'}</dd>
          <dt>Created</dt>
          <dd>{formatDateTime(k.createdAt)}</dd>
          <dt>Last used</dt>
          {/* Recorded per minute once the minute closes (docs/metering.md), so a key in use right now may not show it yet. */}
          <dd>{k.lastUsedAt ? formatDateTime(k.lastUsedAt) : <span title="Use is recorded about a minute after it happens">Not recorded yet</span>}</dd>
        </dl>
      </section>

      <KeyStatePanel keyId={k.id} />

      <UsagePanel keyId={k.id} title="Usage of this key" refreshMs={5000} />

      <section className="card stack" aria-labelledby="key-limits-title">
        <h2 className="section-title" id="key-limits-title">
          Rate limits
        </h2>
        {!plan.ok && <ProblemAlert problem={plan.problem} title="The plan could not be loaded." />}
        <LimitsComparison planLimits={plan.ok ? plan.data.limits : []} overrides={k.limits} />
        {writable && (
          <>
            <h3 className="section-title" style={{ fontSize: 'var(--text-base)' }}>
              Edit overrides
            </h3>
            <KeyLimitsEditor keyId={k.id} planLimits={plan.ok ? plan.data.limits : []} overrides={k.limits} />
          </>
        )}
      </section>

      <section className="stack" aria-labelledby="key-audit-title">
        <div className="cluster cluster--between">
          <h2 className="section-title" id="key-audit-title">
            Recent changes
          </h2>
          <Link href={`/audit?targetId=${encodeURIComponent(k.id)}`} className="small">
            Full history →
          </Link>
        </div>
        {!audit.ok ? (
          <ProblemAlert problem={audit.problem} title="The audit log could not be loaded." />
        ) : audit.data.items.length === 0 ? (
          <div className="card">
            <EmptyState title="No changes recorded" />
          </div>
        ) : (
          <AuditTable entries={audit.data.items} />
        )}
      </section>
    </div>
  );
}
