'use client';

import type { KeyWithSecret, Plan } from '@tollgate/contracts';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Modal } from '@/components/modal';
import { SecretReveal } from '@/components/secret-reveal';
import { CreateKeyForm } from './create-key-form';

/** "New key": the form in a dialog, then the secret, shown once. */
export function CreateKeyButton({ plans }: { plans: Plan[] }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [created, setCreated] = useState<KeyWithSecret | null>(null);

  const close = () => {
    setOpen(false);
    if (created) router.refresh();
    setCreated(null);
  };

  if (plans.length === 0) {
    return (
      <Link className="button" href="/plans/new">
        Create a plan first
      </Link>
    );
  }

  return (
    <>
      <button type="button" className="button" onClick={() => setOpen(true)}>
        New key
      </button>
      <Modal open={open} title={created ? `Key “${created.name}” created` : 'New API key'} onClose={close}>
        {created ? (
          <div className="stack">
            <SecretReveal secret={created.key} />
            <div className="form-actions">
              <Link className="button button--secondary" href={`/keys/${created.id}`} onClick={close}>
                Open key
              </Link>
              <button type="button" className="button" onClick={close}>
                Done
              </button>
            </div>
          </div>
        ) : (
          <CreateKeyForm plans={plans} onCreated={setCreated} onCancel={close} />
        )}
      </Modal>
    </>
  );
}
