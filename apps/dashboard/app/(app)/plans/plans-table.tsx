import type { Plan } from '@tollgate/contracts';
import Link from 'next/link';
import { describeLimit, describeQuota } from '@/lib/describe-limit';
import { formatNumber } from '@/lib/format';
import { DeletePlanButton } from './delete-plan-button';

export function PlansTable({ plans, writable }: { plans: Plan[]; writable: boolean }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Plan</th>
            <th scope="col">Rate limits</th>
            <th scope="col">Quota</th>
            <th scope="col">Fail mode</th>
            <th scope="col" className="num">
              Keys
            </th>
            {writable && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {plans.map((plan) => (
            <tr key={plan.id}>
              <td>
                <Link href={`/plans/${plan.id}`}>{plan.name}</Link>
                {plan.description && <div className="muted small">{plan.description}</div>}
              </td>
              <td>
                {plan.limits.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  plan.limits.map((limit) => (
                    <div key={limit.name} className="nowrap">
                      <span className="mono">{limit.name}</span>: {describeLimit(limit).rate}
                    </div>
                  ))
                )}
              </td>
              <td>{describeQuota(plan.quota)}</td>
              <td>{plan.failMode}</td>
              <td className="num">
                <Link href={`/keys?planId=${plan.id}`}>{formatNumber(plan.keyCount)}</Link>
              </td>
              {writable && (
                <td>
                  <div className="table-actions">
                    <Link className="button button--secondary button--small" href={`/plans/${plan.id}`}>
                      Edit
                    </Link>
                    <DeletePlanButton planId={plan.id} planName={plan.name} keyCount={plan.keyCount} />
                  </div>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
