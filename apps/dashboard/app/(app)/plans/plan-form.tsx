'use client';

import { FAIL_MODES, type Plan, type PlanInput } from '@tollgate/contracts';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { describedBy, FormField } from '@/components/form-field';
import { LimitsEditor } from '@/components/limits-editor';
import { ProblemAlert } from '@/components/problem-alert';
import { api } from '@/lib/api-client';
import { formatNumber } from '@/lib/format';
import { errorLookup, formProblem, placedIn } from '@/lib/form-errors';
import { checkDrafts, fromDraft, toDraft, type LimitDraft } from '@/lib/limit-draft';
import { validationProblem } from '@/lib/problem';
import { useApiAction } from '@/lib/use-api-action';
import { QuotaFields, quotaDraftOf, quotaFromDraft, type QuotaDraft } from './quota-fields';

/** Field errors shown next to an input; any other goes in the form's alert. */
const PLACED = placedIn(['name', 'failMode', 'description', 'limits', 'quota.limit', 'quota.period', 'quota.resetDay']);

const FAIL_MODE_HINTS: Record<(typeof FAIL_MODES)[number], string> = {
  closed: 'closed: reject with 503 while the limit store is down',
  open: 'open: allow requests while the limit store is down',
  local: 'local: each API instance enforces limits in memory',
};

/** Create or edit a plan: name, limits, quota and fail mode, with the impact stated before saving. */
export function PlanForm({ plan }: { plan?: Plan }) {
  const router = useRouter();
  const [limits, setLimits] = useState<LimitDraft[]>(() => plan?.limits.map(toDraft) ?? []);
  const [quota, setQuota] = useState<QuotaDraft>(() => quotaDraftOf(plan?.quota));
  const { pending, problem, setProblem, run } = useApiAction();
  const [saved, setSaved] = useState(false);
  const errorFor = errorLookup(problem?.errors);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSaved(false);
    const data = new FormData(event.currentTarget);
    const local = checkDrafts(limits, 'limits');
    if (local.length) {
      setProblem(validationProblem(local));
      return;
    }
    const description = String(data.get('description') ?? '').trim();
    const body: PlanInput = {
      name: String(data.get('name') ?? '').trim(),
      limits: limits.map(fromDraft),
      failMode: String(data.get('failMode')) as PlanInput['failMode'],
      ...(description ? { description } : {}),
    };
    const quotaInput = quotaFromDraft(quota);
    await run(async () => {
      if (plan) {
        await api.patch<Plan>(`/v1/plans/${plan.id}`, { ...body, description: description || null, quota: quotaInput ?? null });
        setSaved(true);
        router.refresh();
      } else {
        const created = await api.post<Plan>('/v1/plans', { ...body, ...(quotaInput ? { quota: quotaInput } : {}) });
        router.push(`/plans/${created.id}?created=1`);
      }
    });
  }

  return (
    <form className="stack stack--lg" onSubmit={submit} aria-label={plan ? `Edit plan ${plan.name}` : 'New plan'}>
      <div className="card form">
        <div className="form-grid">
          <FormField id="plan-name" label="Name" error={errorFor('name')}>
            <input id="plan-name" name="name" className="input" required maxLength={64} defaultValue={plan?.name} {...describedBy('plan-name', errorFor('name'))} />
          </FormField>
          <FormField id="plan-fail-mode" label="When the limit store is down" error={errorFor('failMode')}>
            <select id="plan-fail-mode" name="failMode" className="input" defaultValue={plan?.failMode ?? 'closed'}>
              {FAIL_MODES.map((mode) => (
                <option key={mode} value={mode}>
                  {FAIL_MODE_HINTS[mode]}
                </option>
              ))}
            </select>
          </FormField>
        </div>
        <FormField id="plan-description" label="Description (optional)" error={errorFor('description')}>
          <textarea id="plan-description" name="description" className="input" rows={2} maxLength={1024} defaultValue={plan?.description ?? ''} {...describedBy('plan-description', errorFor('description'))} />
        </FormField>
      </div>
      <fieldset className="fieldset card">
        <legend>Rate limits</legend>
        <LimitsEditor drafts={limits} onChange={setLimits} errorFor={errorFor} idPrefix="plan-limit" emptyText="No rate limits: only the quota (if any) applies." />
      </fieldset>
      <QuotaFields value={quota} onChange={setQuota} errorFor={errorFor} />
      {problem && <ProblemAlert problem={formProblem(problem, PLACED)} />}
      {saved && (
        <p className="alert alert--success" role="status">
          Saved. Keys on this plan use the new limits within a second.
        </p>
      )}
      <div className="form-actions">
        {plan && (
          <p className="impact" data-testid="plan-impact">
            <strong>{formatNumber(plan.keyCount)}</strong> {plan.keyCount === 1 ? 'key uses' : 'keys use'} this plan; {plan.keyCount ? 'they get the changes within a second.' : 'nothing is affected yet.'}
          </p>
        )}
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Saving…' : plan ? 'Save plan' : 'Create plan'}
        </button>
      </div>
    </form>
  );
}
