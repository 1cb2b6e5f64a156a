'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { ConfirmDialog } from '@/components/confirm-dialog';
import { api } from '@/lib/api-client';

/** Deletes a webhook after confirmation; its pending deliveries go with it. */
export function DeleteWebhookButton({ webhookId, url }: { webhookId: string; url: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);

  async function remove() {
    await api.delete(`/v1/webhooks/${encodeURIComponent(webhookId)}`);
    setOpen(false);
    router.refresh();
  }

  return (
    <>
      <button type="button" className="button button--secondary button--small" style={{ color: 'var(--danger)' }} onClick={() => setOpen(true)}>
        Delete
      </button>
      <ConfirmDialog open={open} title="Delete this webhook?" confirmLabel="Delete webhook" onConfirm={remove} onClose={() => setOpen(false)}>
        <p className="mono small" style={{ overflowWrap: 'anywhere' }}>
          {url}
        </p>
        <p style={{ margin: 0 }}>No more events are sent to it, and its pending deliveries and delivery history are removed. This cannot be undone.</p>
      </ConfirmDialog>
    </>
  );
}
