import type { Plan } from '@tollgate/contracts';
import type { Metadata } from 'next';
import Link from 'next/link';
import { EmptyState } from '@/components/empty-state';
import { PageHeader } from '@/components/page-header';
import { ProblemAlert } from '@/components/problem-alert';
import { canWrite, requireUser } from '@/lib/current-user';
import { serverGet } from '@/lib/server-api';
import { PlansTable } from './plans-table';

export const metadata: Metadata = { title: 'Plans' };

export default async function PlansPage() {
  const me = await requireUser();
  const plans = await serverGet<{ items: Plan[] }>('/v1/plans');
  const writable = canWrite(me);
  const newPlan = (
    <Link className="button" href="/plans/new">
      New plan
    </Link>
  );

  return (
    <div className="stack">
      <PageHeader title="Plans" description="Tiers of rate limits and quotas. Every key is on one plan and may override its limits." actions={writable ? newPlan : undefined} />
      {!plans.ok ? (
        <ProblemAlert problem={plans.problem} title="Plans could not be loaded." />
      ) : plans.data.items.length === 0 ? (
        <div className="card">
          <EmptyState title="No plans yet" action={writable ? newPlan : undefined}>
            A plan sets the burst and sustained limits and the quota its keys run under.
          </EmptyState>
        </div>
      ) : (
        <PlansTable plans={plans.data.items} writable={writable} />
      )}
    </div>
  );
}
