'use client';

import { useEffect, useId, useRef, type ReactNode } from 'react';

/** A native modal <dialog>: focus trapping, Esc and the backdrop come from the browser. */
export function Modal({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      className="modal"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      {open && (
        <>
          <div className="modal__header">
            <h2 id={titleId}>{title}</h2>
            <button type="button" className="button button--ghost button--small" onClick={onClose} aria-label="Close dialog">
              ✕
            </button>
          </div>
          <div className="modal__body">{children}</div>
        </>
      )}
    </dialog>
  );
}
