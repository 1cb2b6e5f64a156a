import type { Key } from '@tollgate/contracts';

/** Enabled, disabled or expired: what verification would answer for this key right now. */
export function KeyStatusBadge({ keyItem, now }: { keyItem: Pick<Key, 'enabled' | 'expiresAt'>; now: number }) {
  if (keyItem.expiresAt && new Date(keyItem.expiresAt).getTime() <= now) return <span className="badge badge--warning">expired</span>;
  if (!keyItem.enabled) return <span className="badge badge--danger">disabled</span>;
  return <span className="badge badge--success">enabled</span>;
}
