import type { Metadata } from 'next';
import { EmptyState } from '@/components/empty-state';
import { PageHeader } from '@/components/page-header';
import { canWrite, requireUser } from '@/lib/current-user';
import { PlanForm } from '../plan-form';

export const metadata: Metadata = { title: 'New plan' };

export default async function NewPlanPage() {
  const me = await requireUser();
  return (
    <div className="stack">
      <PageHeader back={{ href: '/plans', label: 'All plans' }} title="New plan" description="Typical: a burst limit (token bucket) and a sustained limit (sliding window), plus a monthly quota." />
      {canWrite(me) ? (
        <PlanForm />
      ) : (
        <div className="card">
          <EmptyState title="Read-only access">Viewers cannot create plans.</EmptyState>
        </div>
      )}
    </div>
  );
}
