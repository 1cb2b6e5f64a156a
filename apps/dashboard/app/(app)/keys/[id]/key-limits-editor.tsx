'use client';

import type { Key, Limit } from '@tollgate/contracts';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { LimitsEditor } from '@/components/limits-editor';
import { ProblemAlert } from '@/components/problem-alert';
import { api } from '@/lib/api-client';
import { describeLimit } from '@/lib/describe-limit';
import { errorLookup, formProblem, placedIn } from '@/lib/form-errors';
import { checkDrafts, fromDraft, toDraft, type LimitDraft } from '@/lib/limit-draft';
import { validationProblem } from '@/lib/problem';
import { useApiAction } from '@/lib/use-api-action';

/** Field errors shown next to an input; any other goes in the form's alert. */
const PLACED = placedIn(['limits']);

/**
 * Edits this key's limit overrides (PATCH /v1/keys/:id {limits}). A plan limit is tightened or
 * loosened for this key by overriding it under the same name.
 */
export function KeyLimitsEditor({ keyId, planLimits, overrides }: { keyId: string; planLimits: Limit[]; overrides: Limit[] }) {
  const router = useRouter();
  const [drafts, setDrafts] = useState<LimitDraft[]>(() => overrides.map(toDraft));
  const { pending, problem, setProblem, run } = useApiAction();
  const [saved, setSaved] = useState<Limit[] | null>(null);
  const errorFor = errorLookup(problem?.errors);
  const notOverridden = planLimits.filter((limit) => !drafts.some((d) => d.name === limit.name));

  async function save(event: FormEvent) {
    event.preventDefault();
    const local = checkDrafts(drafts, 'limits');
    setSaved(null);
    if (local.length) {
      setProblem(validationProblem(local));
      return;
    }
    await run(async () => {
      const key = await api.patch<Key>(`/v1/keys/${keyId}`, { limits: drafts.map(fromDraft) });
      setSaved(key.limits);
      setDrafts(key.limits.map(toDraft));
      router.refresh();
    });
  }

  return (
    <form className="stack" onSubmit={save} aria-label="Limit overrides">
      <LimitsEditor
        drafts={drafts}
        onChange={(next) => {
          setDrafts(next);
          setSaved(null);
        }}
        errorFor={errorFor}
        idPrefix="override"
        emptyText="No overrides: this key runs on its plan's limits."
        extraActions={notOverridden.map((limit) => (
          <button key={limit.name} type="button" className="button button--secondary button--small" onClick={() => setDrafts([...drafts, toDraft(limit)])}>
            Override “{limit.name}”
          </button>
        ))}
      />
      {problem && <ProblemAlert problem={formProblem(problem, PLACED)} />}
      {saved && (
        <div className="alert alert--success" role="status">
          <p className="alert__title">Saved. In effect within a second on every API instance.</p>
          {saved.length ? (
            <ul style={{ margin: 0 }}>
              {saved.map((limit) => (
                <li key={limit.name}>
                  <span className="mono">{limit.name}</span>: {describeLimit(limit).rate} ({describeLimit(limit).algorithm})
                </li>
              ))}
            </ul>
          ) : (
            <p style={{ margin: 0 }}>No overrides: the plan&apos;s limits apply.</p>
          )}
        </div>
      )}
      <div className="form-actions">
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Saving…' : 'Save limits'}
        </button>
      </div>
    </form>
  );
}
