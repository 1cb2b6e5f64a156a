'use client';

import { useState, type ReactNode } from 'react';
import { toProblemInfo, type ProblemInfo } from '@/lib/problem';
import { Modal } from './modal';
import { ProblemAlert } from './problem-alert';

/** Asks before a destructive action; shows the API's reason if it is refused. */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
}) {
  const [pending, setPending] = useState(false);
  const [problem, setProblem] = useState<ProblemInfo | null>(null);

  const close = () => {
    setProblem(null);
    onClose();
  };

  async function confirm() {
    setPending(true);
    setProblem(null);
    try {
      await onConfirm();
    } catch (err) {
      setProblem(toProblemInfo(err));
    } finally {
      setPending(false);
    }
  }

  return (
    <Modal open={open} title={title} onClose={close}>
      <div className="stack">
        <div>{children}</div>
        {problem && <ProblemAlert problem={problem} />}
        <div className="form-actions">
          <button type="button" className="button button--secondary" onClick={close}>
            Cancel
          </button>
          <button type="button" className="button button--danger" onClick={confirm} disabled={pending}>
            {pending ? 'Working…' : confirmLabel}
          </button>
        </div>
      </div>
    </Modal>
  );
}
