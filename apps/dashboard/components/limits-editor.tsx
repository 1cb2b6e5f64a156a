'use client';

import { MAX_LIMITS_PER_PLAN } from '@tollgate/contracts';
import type { ReactNode } from 'react';
import type { ErrorFor } from '@/lib/form-errors';
import { newDraft, type LimitDraft } from '@/lib/limit-draft';
import { LimitFields } from './limit-fields';

/** The API path of the list in every form that edits limits (plans and keys): `limits.0.name`... */
const PATH = 'limits';

/** An editable list of rate limits (burst and sustained, or any of the six algorithms). */
export function LimitsEditor({
  drafts,
  onChange,
  errorFor,
  idPrefix = 'limit',
  emptyText = 'No limits.',
  extraActions,
}: {
  drafts: LimitDraft[];
  onChange: (drafts: LimitDraft[]) => void;
  errorFor: ErrorFor;
  idPrefix?: string;
  emptyText?: string;
  extraActions?: ReactNode;
}) {
  const full = drafts.length >= MAX_LIMITS_PER_PLAN;
  return (
    <div className="stack">
      {drafts.length === 0 && <p className="hint">{emptyText}</p>}
      {drafts.map((draft, index) => (
        <LimitFields
          key={draft.uid}
          draft={draft}
          idPrefix={`${idPrefix}-${index}`}
          path={`${PATH}.${index}`}
          errorFor={errorFor}
          onChange={(next) => onChange(drafts.map((d) => (d.uid === draft.uid ? next : d)))}
          onRemove={() => onChange(drafts.filter((d) => d.uid !== draft.uid))}
        />
      ))}
      {errorFor(PATH) && <p className="field-error">{errorFor(PATH)}</p>}
      <div className="cluster">
        <button type="button" className="button button--secondary button--small" disabled={full} onClick={() => onChange([...drafts, newDraft(drafts.map((d) => d.name))])}>
          + Add limit
        </button>
        {extraActions}
        {full && <span className="hint">At most {MAX_LIMITS_PER_PLAN} limits.</span>}
      </div>
    </div>
  );
}
