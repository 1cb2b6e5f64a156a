import { keyStatus, type Key } from '@tollgate/contracts';
import { formatDateTime } from '@/lib/format';

/**
 * Enabled, disabled or expired: what verification would answer for this key right now. A key that
 * will expire says when, so the old key of a rotation (valid until its grace ends) stands apart
 * from its successor of the same name.
 */
export function KeyStatusBadge({ keyItem, now }: { keyItem: Pick<Key, 'enabled' | 'expiresAt'>; now: number }) {
  const expiresAt = keyItem.expiresAt ? new Date(keyItem.expiresAt).getTime() : null;
  const status = keyStatus(keyItem.enabled, expiresAt, now);
  if (status === 'expired') return <span className="badge badge--warning">expired</span>;
  const badge = status === 'enabled' ? <span className="badge badge--success">enabled</span> : <span className="badge badge--danger">disabled</span>;
  if (expiresAt === null) return badge;
  return (
    <>
      {badge} <span className="muted nowrap">expires {formatDateTime(keyItem.expiresAt!)}</span>
    </>
  );
}
