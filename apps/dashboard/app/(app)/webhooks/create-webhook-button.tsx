'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Modal } from '@/components/modal';
import { SecretReveal, type SecretKind } from '@/components/secret-reveal';
import { CreateWebhookForm, type CreatedWebhook } from './create-webhook-form';

const SIGNING_SECRET: SecretKind = {
  noun: 'signing secret',
  ifLost: 'Use it to check the Tollgate-Signature header of each delivery. If it is lost, delete the webhook and create a new one.',
  label: 'Webhook signing secret',
  testId: 'webhook-secret',
};

/** "New webhook": the form in a dialog, then the signing secret, shown once. */
export function CreateWebhookButton() {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);

  const close = () => {
    setOpen(false);
    if (created) router.refresh();
    setCreated(null);
  };

  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>
        New webhook
      </button>
      <Modal open={open} title={created ? 'Webhook created' : 'New webhook'} onClose={close}>
        {created ? (
          <div className="stack">
            <p className="mono small" style={{ margin: 0, overflowWrap: 'anywhere' }}>
              {created.url}
            </p>
            <SecretReveal secret={created.secret} kind={SIGNING_SECRET} />
            <div className="form-actions">
              <button type="button" className="button" onClick={close}>
                Done
              </button>
            </div>
          </div>
        ) : (
          <CreateWebhookForm onCreated={setCreated} onCancel={close} />
        )}
      </Modal>
    </>
  );
}
