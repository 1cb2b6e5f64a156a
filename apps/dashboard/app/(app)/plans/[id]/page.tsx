import type { Plan } from '@tollgate/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { LimitsTable } from '@/components/limits-table';
import { PageHeader } from '@/components/page-header';
import { ProblemAlert } from '@/components/problem-alert';
import { canWrite, requireUser } from '@/lib/current-user';
import { describeQuota } from '@/lib/describe-limit';
import { formatNumber } from '@/lib/format';
import { param, type SearchParams } from '@/lib/search-params';
import { loadOrNotFound } from '@/lib/server-api';
import { DeletePlanButton } from '../delete-plan-button';
import { PlanForm } from '../plan-form';

export const metadata: Metadata = { title: 'Plan' };

export default async function PlanPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  const me = await requireUser();
  const { id } = await params;
  const created = param(await searchParams, 'created') === '1';
  const plan = await loadOrNotFound<Plan>(`/v1/plans/${encodeURIComponent(id)}`);
  if (!plan.ok) {
    return <ProblemAlert problem={plan.problem} title="This plan could not be loaded." />;
  }
  const p = plan.data;
  const writable = canWrite(me);

  return (
    <div className="stack">
      <PageHeader
        back={{ href: '/plans', label: 'All plans' }}
        title={p.name}
        description={
          <>
            <Link href={`/keys?planId=${p.id}`}>
              {formatNumber(p.keyCount)} {p.keyCount === 1 ? 'key' : 'keys'}
            </Link>{' '}
            · {describeQuota(p.quota)} · fail mode {p.failMode}
          </>
        }
        actions={writable ? <DeletePlanButton planId={p.id} planName={p.name} keyCount={p.keyCount} afterDelete="/plans" /> : undefined}
      />
      {created && (
        <p className="alert alert--success" role="status">
          Plan created. Issue keys on it from the Keys page.
        </p>
      )}
      {writable ? (
        <PlanForm plan={p} />
      ) : (
        <section className="card stack">
          <h2 className="section-title">Rate limits</h2>
          <LimitsTable limits={p.limits} caption={`Limits of plan ${p.name}`} />
          {p.description && <p className="muted">{p.description}</p>}
        </section>
      )}
    </div>
  );
}
