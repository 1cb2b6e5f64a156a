'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { api } from '@/lib/api-client';
import { formatNumber } from '@/lib/format';

/**
 * Deletes a plan after confirmation. While keys use it (as of this page's load) the dialog only
 * says why it cannot go; the API's 409 still covers a key added since.
 */
export function DeletePlanButton({ planId, planName, keyCount, afterDelete }: { planId: string; planName: string; keyCount: number; afterDelete?: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);

  async function remove() {
    await api.delete(`/v1/plans/${planId}`);
    setOpen(false);
    if (afterDelete) router.push(afterDelete);
    router.refresh();
  }

  return (
    <>
      <button type="button" className="button button--secondary button--small" style={{ color: 'var(--danger)' }} onClick={() => setOpen(true)}>
        Delete
      </button>
      <ConfirmDialog
        open={open}
        title={keyCount > 0 ? `Plan “${planName}” is in use` : `Delete plan “${planName}”?`}
        confirmLabel="Delete plan"
        onConfirm={remove}
        onClose={() => setOpen(false)}
        blocked={keyCount > 0}
      >
        <p style={{ margin: 0 }}>
          {keyCount > 0
            ? `${formatNumber(keyCount)} ${keyCount === 1 ? 'key uses' : 'keys use'} this plan (expired ones included; the old key of a rotation counts until its grace period ends): it cannot be deleted until each is revoked, or moved to another plan through the API (PATCH /v1/keys/:id with a planId).`
            : 'No key uses this plan. Deleting it cannot be undone; the old keys of finished rotations still on it are revoked with it.'}
        </p>
      </ConfirmDialog>
    </>
  );
}
