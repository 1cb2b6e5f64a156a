import type { Metadata } from 'next';
import { AppShell } from '@/components/app-shell';
import { requireSession } from '@/lib/session';

export const metadata: Metadata = { title: 'Overview' };

export default async function OverviewPage() {
  const me = await requireSession('/');
  return (
    <AppShell me={me}>
      <div className="page-header">
        <h1>Overview</h1>
        <p className="muted">Traffic, rate-limited requests and top keys will appear here.</p>
      </div>
    </AppShell>
  );
}
