'use client';

import type { ReactNode } from 'react';
import { useApiAction } from '@/lib/use-api-action';
import { Modal } from './modal';
import { ProblemAlert } from './problem-alert';

/**
 * Asks before a destructive action; shows the API's reason if it is refused. `blocked`: the action
 * is known to be refused (the children say why), so only Cancel is offered.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  blocked = false,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  blocked?: boolean;
}) {
  const { pending, problem, setProblem, run } = useApiAction();

  const close = () => {
    setProblem(null);
    onClose();
  };

  async function confirm() {
    await run(onConfirm);
  }

  return (
    <Modal open={open} title={title} onClose={close}>
      <div className="stack">
        <div>{children}</div>
        {problem && <ProblemAlert problem={problem} />}
        <div className="form-actions">
          <button type="button" className="button button--secondary" onClick={close}>
            {blocked ? 'Close' : 'Cancel'}
          </button>
          {!blocked && (
            <button type="button" className="button button--danger" onClick={confirm} disabled={pending}>
              {pending ? 'Working…' : confirmLabel}
            </button>
          )}
        </div>
      </div>
    </Modal>
  );
}
