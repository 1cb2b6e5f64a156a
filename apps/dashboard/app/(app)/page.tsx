import type { Metadata } from 'next';
import { PageHeader } from '@/components/page-header';
import { TopKeys } from '@/components/top-keys';
import { UsagePanel } from '@/components/usage-panel';

export const metadata: Metadata = { title: 'Overview' };

export default function OverviewPage() {
  return (
    <div className="stack stack--lg">
      <PageHeader title="Overview" description="Verified requests by outcome, the share answered 429, and the busiest keys." />
      <UsagePanel title="Requests over time" />
      <TopKeys />
    </div>
  );
}
