import type { AuditEntry } from '@tollgate/contracts';
import Link from 'next/link';
import { formatDateTime } from '@/lib/format';

function targetHref(entry: AuditEntry): string | undefined {
  if (entry.targetType === 'key') return `/keys/${entry.targetId}`;
  if (entry.targetType === 'plan') return `/plans/${entry.targetId}`;
  return undefined;
}

function Change({ label, value }: { label: string; value: unknown }) {
  if (value === null || value === undefined) return null;
  return (
    <>
      <p className="small muted" style={{ margin: '4px 0 0' }}>
        {label}
      </p>
      <pre className="diff">{JSON.stringify(value, null, 2)}</pre>
    </>
  );
}

/** Who did what to which plan or key, newest first, with the before/after snapshots on demand. */
export function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Actor</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => {
            const href = targetHref(entry);
            return (
              <tr key={entry.id}>
                <td className="nowrap">{formatDateTime(entry.at)}</td>
                <td title={entry.actor}>{entry.actorName ?? <span className="mono">{entry.actor}</span>}</td>
                <td>
                  <span className="badge">{entry.action}</span>
                </td>
                <td>
                  <span className="muted">{entry.targetType}</span>{' '}
                  {href ? (
                    <Link className="mono" href={href}>
                      {entry.targetId}
                    </Link>
                  ) : (
                    <span className="mono">{entry.targetId}</span>
                  )}
                </td>
                <td>
                  {entry.before || entry.after ? (
                    <details>
                      <summary className="small">Details</summary>
                      <Change label="Before" value={entry.before} />
                      <Change label="After" value={entry.after} />
                    </details>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
