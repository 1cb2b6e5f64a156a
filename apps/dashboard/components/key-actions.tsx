'use client';

import { keyStatus, type Key } from '@tollgate/contracts';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { api } from '@/lib/api-client';
import { useApiAction } from '@/lib/use-api-action';
import { ConfirmDialog } from './confirm-dialog';
import { ProblemAlert } from './problem-alert';
import { RotateKeyDialog } from './rotate-key-dialog';

/**
 * Enable/disable, rotate and revoke one key. Rendered for admins only. An expired key cannot be
 * enabled back into use (verification answers EXPIRED either way), so its toggle is not offered.
 */
export function KeyActions({ keyItem, now, afterRevoke }: { keyItem: Pick<Key, 'id' | 'name' | 'enabled' | 'expiresAt'>; now: number; afterRevoke?: string }) {
  const router = useRouter();
  const [dialog, setDialog] = useState<'rotate' | 'revoke' | null>(null);
  const { pending, problem, run } = useApiAction();

  async function toggle() {
    await run(async () => {
      await api.patch(`/v1/keys/${keyItem.id}`, { enabled: !keyItem.enabled });
      router.refresh();
    });
  }

  async function revoke() {
    await api.delete(`/v1/keys/${keyItem.id}`);
    setDialog(null);
    if (afterRevoke) router.push(afterRevoke);
    router.refresh();
  }

  const expired = keyStatus(keyItem.enabled, keyItem.expiresAt ? new Date(keyItem.expiresAt).getTime() : null, now) === 'expired';

  return (
    <div className="table-actions">
      {!expired && (
        <button type="button" className="button button--secondary button--small" onClick={toggle} disabled={pending}>
          {keyItem.enabled ? 'Disable' : 'Enable'}
        </button>
      )}
      <button type="button" className="button button--secondary button--small" onClick={() => setDialog('rotate')}>
        Rotate
      </button>
      <button type="button" className="button button--secondary button--small" onClick={() => setDialog('revoke')} style={{ color: 'var(--danger)' }}>
        Revoke
      </button>
      {problem && <ProblemAlert problem={problem} />}
      <RotateKeyDialog open={dialog === 'rotate'} keyId={keyItem.id} keyName={keyItem.name} onClose={() => setDialog(null)} />
      <ConfirmDialog open={dialog === 'revoke'} title={`Revoke “${keyItem.name}”?`} confirmLabel="Revoke key" onConfirm={revoke} onClose={() => setDialog(null)}>
        <p style={{ margin: 0 }}>
          Requests with this key fail as <span className="mono">NOT_FOUND</span> immediately. This cannot be undone; its usage and audit history stay readable.
        </p>
      </ConfirmDialog>
    </div>
  );
}
