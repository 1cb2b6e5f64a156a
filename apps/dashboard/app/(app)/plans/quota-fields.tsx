'use client';

import type { QuotaInput } from '@tollgate/contracts';
import { describedBy, FormField } from '@/components/form-field';
import type { ErrorFor } from '@/lib/form-errors';

export interface QuotaDraft {
  enabled: boolean;
  limit: string;
  period: 'day' | 'month';
  resetDay: string;
}

export function quotaDraftOf(quota: { limit: number; period: 'day' | 'month'; resetDay: number } | null | undefined): QuotaDraft {
  return quota ? { enabled: true, limit: String(quota.limit), period: quota.period, resetDay: String(quota.resetDay) } : { enabled: false, limit: '10000', period: 'month', resetDay: '1' };
}

export function quotaFromDraft(draft: QuotaDraft): QuotaInput | undefined {
  if (!draft.enabled) return undefined;
  const limit = draft.limit.trim() === '' ? Number.NaN : Number(draft.limit);
  return draft.period === 'month' ? { limit, period: 'month', resetDay: Number(draft.resetDay) || 1 } : { limit, period: 'day' };
}

/** An optional calendar quota (UTC): requests per day or per month, counted on valid requests. */
export function QuotaFields({ value, onChange, errorFor }: { value: QuotaDraft; onChange: (value: QuotaDraft) => void; errorFor: ErrorFor }) {
  const set = <K extends keyof QuotaDraft>(field: K, v: QuotaDraft[K]) => onChange({ ...value, [field]: v });
  return (
    <fieldset className="fieldset card">
      <legend>Quota</legend>
      <div className="stack">
        <label className="checkbox">
          <input type="checkbox" checked={value.enabled} onChange={(e) => set('enabled', e.target.checked)} />
          Limit the number of valid requests per day or month
        </label>
        {value.enabled && (
          <div className="form-grid">
            <FormField id="quota-limit" label="Requests" error={errorFor('quota.limit')}>
              <input id="quota-limit" className="input" type="number" min={1} step={1} required value={value.limit} onChange={(e) => set('limit', e.target.value)} {...describedBy('quota-limit', errorFor('quota.limit'))} />
            </FormField>
            <FormField id="quota-period" label="Per" error={errorFor('quota.period')}>
              <select id="quota-period" className="input" value={value.period} onChange={(e) => set('period', e.target.value as QuotaDraft['period'])}>
                <option value="day">day (UTC)</option>
                <option value="month">month (UTC)</option>
              </select>
            </FormField>
            {value.period === 'month' && (
              <FormField id="quota-reset" label="Resets on day" error={errorFor('quota.resetDay')}>
                <input id="quota-reset" className="input" type="number" min={1} max={28} step={1} value={value.resetDay} onChange={(e) => set('resetDay', e.target.value)} {...describedBy('quota-reset', errorFor('quota.resetDay'))} />
              </FormField>
            )}
          </div>
        )}
      </div>
    </fieldset>
  );
}
