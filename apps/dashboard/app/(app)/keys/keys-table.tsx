import type { Key } from '@tollgate/contracts';
import Link from 'next/link';
import { KeyActions } from '@/components/key-actions';
import { KeyStatusBadge } from '@/components/key-status-badge';
import { formatDateTime } from '@/lib/format';

export function KeysTable({ keys, planNames, writable, now }: { keys: Key[]; planNames: Map<string, string>; writable: boolean; now: number }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Plan</th>
            <th scope="col">Owner</th>
            <th scope="col">Status</th>
            <th scope="col">Last used</th>
            {writable && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td>
                <Link href={`/keys/${key.id}`}>{key.name}</Link>
              </td>
              <td className="mono nowrap">{key.start}…</td>
              <td>{planNames.get(key.planId) ?? <span className="mono">{key.planId}</span>}</td>
              <td className="mono">{key.ownerId ?? <span className="muted">—</span>}</td>
              <td>
                <KeyStatusBadge keyItem={key} now={now} />
              </td>
              <td className="nowrap">{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : <span className="muted" title="Use is recorded about a minute after it happens">not yet</span>}</td>
              {writable && (
                <td>
                  <KeyActions keyItem={key} now={now} />
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
