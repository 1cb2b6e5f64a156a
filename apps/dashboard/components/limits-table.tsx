import type { Limit } from '@tollgate/contracts';
import { describeLimit } from '@/lib/describe-limit';
import { EmptyState } from './empty-state';

/** Read-only limits: what a plan or key enforces. */
export function LimitsTable({ limits, caption }: { limits: readonly Limit[]; caption?: string }) {
  if (limits.length === 0) return <EmptyState title="No rate limits">Requests are only counted against the quota, if any.</EmptyState>;
  return (
    <div className="table-wrap">
      <table className="table">
        {caption && <caption className="visually-hidden">{caption}</caption>}
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Limit</th>
            <th scope="col">Algorithm</th>
            <th scope="col">Scope</th>
          </tr>
        </thead>
        <tbody>
          {limits.map((limit) => (
            <tr key={limit.name}>
              <td className="mono">{limit.name}</td>
              <td>{describeLimit(limit).rate}</td>
              <td>{describeLimit(limit).algorithm}</td>
              <td>{limit.scope}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
