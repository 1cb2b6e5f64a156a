'use client';

import type { KeyInput, KeyWithSecret, Plan } from '@tollgate/contracts';
import { useState, type FormEvent } from 'react';
import { describedBy, FormField } from '@/components/form-field';
import { LimitsEditor } from '@/components/limits-editor';
import { ProblemAlert } from '@/components/problem-alert';
import { api } from '@/lib/api-client';
import { errorLookup, formProblem, placedIn } from '@/lib/form-errors';
import { checkDrafts, fromDraft, type LimitDraft } from '@/lib/limit-draft';
import { validationProblem } from '@/lib/problem';
import { useApiAction } from '@/lib/use-api-action';

/** Field errors shown next to an input; any other goes in the form's alert. */
const PLACED = placedIn(['name', 'planId', 'ownerId', 'expiresAt', 'limits']);

/** Name, plan, owner, expiry and optional limit overrides; calls back with the new key and its secret. */
export function CreateKeyForm({ plans, onCreated, onCancel }: { plans: Plan[]; onCreated: (key: KeyWithSecret) => void; onCancel: () => void }) {
  const [overrides, setOverrides] = useState<LimitDraft[]>([]);
  const { pending, problem, setProblem, run } = useApiAction();
  const errorFor = errorLookup(problem?.errors);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const local = checkDrafts(overrides, 'limits');
    if (local.length) {
      setProblem(validationProblem(local, 'Check the highlighted limit fields.'));
      return;
    }
    const expires = String(data.get('expiresAt') ?? '');
    const owner = String(data.get('ownerId') ?? '').trim();
    const input: KeyInput = {
      name: String(data.get('name') ?? '').trim(),
      planId: String(data.get('planId') ?? ''),
      ...(owner ? { ownerId: owner } : {}),
      // The field is labelled UTC, like every time the dashboard shows: read it as UTC, not as the browser's zone.
      ...(expires ? { expiresAt: new Date(`${expires}Z`).toISOString() } : {}),
      ...(overrides.length ? { limits: overrides.map(fromDraft) } : {}),
    };
    await run(async () => onCreated(await api.post<KeyWithSecret>('/v1/keys', input)));
  }

  return (
    <form className="form" onSubmit={submit} noValidate={false}>
      {problem && <ProblemAlert problem={formProblem(problem, PLACED)} />}
      <div className="form-grid">
        <FormField id="key-name" label="Name" error={errorFor('name')}>
          <input id="key-name" name="name" className="input" required maxLength={128} placeholder="e.g. Acme production" {...describedBy('key-name', errorFor('name'))} />
        </FormField>
        <FormField id="key-plan" label="Plan" error={errorFor('planId')}>
          <select id="key-plan" name="planId" className="input" required defaultValue={plans[0]?.id} {...describedBy('key-plan', errorFor('planId'))}>
            {plans.map((plan) => (
              <option key={plan.id} value={plan.id}>
                {plan.name}
              </option>
            ))}
          </select>
        </FormField>
        <FormField id="key-owner" label="Owner (optional)" error={errorFor('ownerId')} hint="Your customer or user id; owner-scoped limits share one counter per owner.">
          <input id="key-owner" name="ownerId" className="input" maxLength={128} autoCapitalize="none" spellCheck={false} {...describedBy('key-owner', errorFor('ownerId'), true)} />
        </FormField>
        <FormField id="key-expires" label="Expires (optional, UTC)" error={errorFor('expiresAt')}>
          <input id="key-expires" name="expiresAt" type="datetime-local" className="input" {...describedBy('key-expires', errorFor('expiresAt'))} />
        </FormField>
      </div>
      <fieldset className="fieldset">
        <legend>Limit overrides (optional)</legend>
        <p className="hint" style={{ marginBottom: 12 }}>
          An override replaces the plan&apos;s limit of the same name, or adds a limit for this key only.
        </p>
        <LimitsEditor drafts={overrides} onChange={setOverrides} errorFor={errorFor} idPrefix="create-limit" emptyText="This key uses its plan's limits." />
      </fieldset>
      <div className="form-actions">
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Creating…' : 'Create key'}
        </button>
      </div>
    </form>
  );
}
