import { KEY_STATUSES, type Key, type Plan } from '@tollgate/contracts';
import type { Metadata } from 'next';
import { CursorPager } from '@/components/cursor-pager';
import { EmptyState } from '@/components/empty-state';
import { PageHeader } from '@/components/page-header';
import { ProblemAlert } from '@/components/problem-alert';
import { canWrite, requireUser } from '@/lib/current-user';
import { currentCursor, nextTrail, parseTrail, previousTrail } from '@/lib/cursor-trail';
import { hrefWith, param, type SearchParams } from '@/lib/search-params';
import { queryString, serverGet } from '@/lib/server-api';
import { CreateKeyButton } from './create-key-button';
import { KeyFilters, type KeyFilterValues } from './key-filters';
import { KeysTable } from './keys-table';

export const metadata: Metadata = { title: 'Keys' };

const PAGE_SIZE = 25;

export default async function KeysPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const me = await requireUser();
  const params = await searchParams;
  const status = param(params, 'status');
  const filters: KeyFilterValues = {
    q: param(params, 'q'),
    planId: param(params, 'planId'),
    ownerId: param(params, 'ownerId'),
    status: KEY_STATUSES.find((known) => known === status),
  };
  const trail = parseTrail(param(params, 'trail'));
  const [keys, plans] = await Promise.all([
    serverGet<{ items: Key[]; nextCursor: string | null }>(`/v1/keys${queryString({ ...filters, cursor: currentCursor(trail), limit: PAGE_SIZE })}`),
    serverGet<{ items: Plan[] }>('/v1/plans'),
  ]);
  const planList = plans.ok ? plans.data.items : [];
  const writable = canWrite(me);
  const filtered = Boolean(filters.q || filters.planId || filters.ownerId || filters.status);

  return (
    <div className="stack">
      <PageHeader title="API keys" description="Search, filter and manage keys. Secrets are shown once, when a key is created or rotated." actions={writable && plans.ok ? <CreateKeyButton plans={planList} /> : undefined} />
      {!plans.ok && <ProblemAlert problem={plans.problem} title="Plans could not be loaded." />}
      {/* Keyed by the filters: its inputs are uncontrolled, so a navigation that changes the URL (Clear, Back, the nav link) must remount them. */}
      <KeyFilters key={JSON.stringify(filters)} plans={planList} values={filters} />
      {!keys.ok ? (
        <ProblemAlert problem={keys.problem} title="Keys could not be loaded." />
      ) : keys.data.items.length === 0 ? (
        <div className="card">
          <EmptyState title={filtered ? 'No keys match these filters' : trail.length ? 'No more keys' : 'No keys yet'}>
            {filtered ? 'Try another search or clear the filters.' : writable ? 'Create a key to let a client call your API.' : 'An admin can create keys.'}
          </EmptyState>
        </div>
      ) : (
        <div>
          <KeysTable keys={keys.data.items} planNames={new Map(planList.map((p) => [p.id, p.name]))} writable={writable} now={Date.now()} />
          <CursorPager
            previousHref={trail.length ? hrefWith('/keys', { ...filters, trail: previousTrail(trail) }) : undefined}
            nextHref={keys.data.nextCursor ? hrefWith('/keys', { ...filters, trail: nextTrail(trail, keys.data.nextCursor) }) : undefined}
            summary={`Page ${trail.length + 1} · ${keys.data.items.length} ${keys.data.items.length === 1 ? 'key' : 'keys'} on this page`}
          />
        </div>
      )}
    </div>
  );
}
