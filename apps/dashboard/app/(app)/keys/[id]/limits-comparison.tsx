import { effectiveLimits, type Limit } from '@tollgate/contracts';
import { describeLimit } from '@/lib/describe-limit';

function Cell({ limit }: { limit?: Limit }) {
  if (!limit) return <span className="muted">—</span>;
  const text = describeLimit(limit);
  return (
    <>
      {text.rate}
      <br />
      <span className="muted small">
        {text.algorithm} · per {limit.scope}
      </span>
    </>
  );
}

/** The plan's limits and this key's overrides side by side, and what is in effect. */
export function LimitsComparison({ planLimits, overrides }: { planLimits: Limit[]; overrides: Limit[] }) {
  const effective = effectiveLimits(planLimits, overrides);
  if (effective.length === 0) return <p className="hint">Neither the plan nor the key sets a rate limit.</p>;
  return (
    <div className="table-wrap">
      <table className="table" data-testid="limits-comparison">
        <caption className="visually-hidden">Plan limits, key overrides and the limits in effect</caption>
        <thead>
          <tr>
            <th scope="col">Limit</th>
            <th scope="col">Plan</th>
            <th scope="col">Key override</th>
            <th scope="col">In effect</th>
          </tr>
        </thead>
        <tbody>
          {effective.map((limit) => (
            <tr key={limit.name} data-testid={`effective-${limit.name}`}>
              <th scope="row" className="mono">
                {limit.name}
              </th>
              <td className="nowrap">
                <Cell limit={planLimits.find((l) => l.name === limit.name)} />
              </td>
              <td className="nowrap">
                <Cell limit={overrides.find((l) => l.name === limit.name)} />
              </td>
              <td className="nowrap" style={{ fontWeight: 600 }}>
                <Cell limit={limit} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
