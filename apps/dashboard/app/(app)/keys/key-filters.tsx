import type { KeyStatus, Plan } from '@tollgate/contracts';
import Form from 'next/form';
import Link from 'next/link';

export interface KeyFilterValues {
  q?: string;
  planId?: string;
  ownerId?: string;
  status?: KeyStatus;
}

/** Server-side search and filters: a GET form, so the URL is the state and it works without JS. */
export function KeyFilters({ plans, values }: { plans: Plan[]; values: KeyFilterValues }) {
  const active = Boolean(values.q || values.planId || values.ownerId || values.status);
  return (
    <Form action="/keys" className="card" role="search" aria-label="Filter keys">
      <div className="form-grid">
        <div className="field">
          <label className="label" htmlFor="filter-q">
            Search
          </label>
          <input id="filter-q" name="q" type="search" className="input" defaultValue={values.q} placeholder="Name, key start, id or owner" maxLength={128} />
        </div>
        <div className="field">
          <label className="label" htmlFor="filter-plan">
            Plan
          </label>
          <select id="filter-plan" name="planId" className="input" defaultValue={values.planId ?? ''}>
            <option value="">All plans</option>
            {plans.map((plan) => (
              <option key={plan.id} value={plan.id}>
                {plan.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label className="label" htmlFor="filter-owner">
            Owner
          </label>
          <input id="filter-owner" name="ownerId" className="input" defaultValue={values.ownerId} placeholder="Exact owner id" maxLength={128} autoCapitalize="none" spellCheck={false} />
        </div>
        <div className="field">
          <label className="label" htmlFor="filter-status">
            Status
          </label>
          <select id="filter-status" name="status" className="input" defaultValue={values.status ?? ''}>
            <option value="">Any</option>
            <option value="enabled">Enabled (not expired)</option>
            <option value="disabled">Disabled (not expired)</option>
            <option value="expired">Expired</option>
          </select>
        </div>
      </div>
      <div className="form-actions" style={{ marginTop: 12 }}>
        {active && (
          <Link href="/keys" className="button button--ghost button--small">
            Clear filters
          </Link>
        )}
        <button type="submit" className="button button--small">
          Apply
        </button>
      </div>
    </Form>
  );
}
