import type { AuditEntry } from '@tollgate/contracts';
import type { Metadata } from 'next';
import Form from 'next/form';
import Link from 'next/link';
import { AuditTable } from '@/components/audit-table';
import { CursorPager } from '@/components/cursor-pager';
import { EmptyState } from '@/components/empty-state';
import { PageHeader } from '@/components/page-header';
import { ProblemAlert } from '@/components/problem-alert';
import { currentCursor, nextTrail, parseTrail, previousTrail } from '@/lib/cursor-trail';
import { hrefWith, param, type SearchParams } from '@/lib/search-params';
import { queryString, serverGet } from '@/lib/server-api';

export const metadata: Metadata = { title: 'Audit log' };

const PAGE_SIZE = 50;

export default async function AuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = await searchParams;
  const targetId = param(params, 'targetId');
  const trail = parseTrail(param(params, 'trail'));
  const audit = await serverGet<{ items: AuditEntry[]; nextCursor: string | null }>(`/v1/audit${queryString({ targetId, cursor: currentCursor(trail), limit: PAGE_SIZE })}`);

  return (
    <div className="stack">
      <PageHeader title="Audit log" description="Every change to plans and keys: who, when, and the before/after state." />
      <Form action="/audit" className="card cluster" role="search" aria-label="Filter the audit log">
        <div className="field" style={{ flex: '1 1 240px' }}>
          <label className="label" htmlFor="audit-target">
            Target id
          </label>
          <input id="audit-target" name="targetId" className="input mono" defaultValue={targetId} placeholder="key_… or plan_…" maxLength={64} autoCapitalize="none" spellCheck={false} />
        </div>
        <div className="cluster" style={{ alignSelf: 'flex-end' }}>
          {targetId && (
            <Link className="button button--ghost button--small" href="/audit">
              Show all
            </Link>
          )}
          <button type="submit" className="button button--small">
            Filter
          </button>
        </div>
      </Form>
      {!audit.ok ? (
        <ProblemAlert problem={audit.problem} title="The audit log could not be loaded." />
      ) : audit.data.items.length === 0 ? (
        <div className="card">
          <EmptyState title={targetId ? 'No entries for this target' : 'No entries yet'}>Changes to plans and keys are recorded here.</EmptyState>
        </div>
      ) : (
        <div>
          <AuditTable entries={audit.data.items} />
          <CursorPager
            previousHref={trail.length ? hrefWith('/audit', { targetId, trail: previousTrail(trail) }) : undefined}
            nextHref={audit.data.nextCursor ? hrefWith('/audit', { targetId, trail: nextTrail(trail, audit.data.nextCursor) }) : undefined}
            summary={`Page ${trail.length + 1}`}
          />
        </div>
      )}
    </div>
  );
}
