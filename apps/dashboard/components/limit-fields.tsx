'use client';

import { ALGORITHMS, LIMIT_SCOPES } from '@tollgate/contracts';
import { formatAlgorithm } from '@/lib/format';
import type { ErrorFor } from '@/lib/form-errors';
import { WINDOW_UNITS, type LimitDraft } from '@/lib/limit-draft';
import { describedBy, FormField } from './form-field';

/** The inputs of one rate limit: name, algorithm, limit per window, burst, scope, shaping. */
export function LimitFields({
  draft,
  idPrefix,
  path,
  errorFor,
  onChange,
  onRemove,
}: {
  draft: LimitDraft;
  idPrefix: string;
  /** The API path of this limit, e.g. `limits.0`. */
  path: string;
  errorFor: ErrorFor;
  onChange: (draft: LimitDraft) => void;
  onRemove?: () => void;
}) {
  const id = (field: string) => `${idPrefix}-${field}`;
  const set = <K extends keyof LimitDraft>(field: K, value: LimitDraft[K]) => onChange({ ...draft, [field]: value });
  const err = (field: string) => errorFor(`${path}.${field}`);

  return (
    <div className="limit-row" role="group" aria-label={`Limit ${draft.name || '(unnamed)'}`} data-testid={`limit-${draft.name}`}>
      <FormField id={id('name')} label="Name" error={err('name')}>
        <input
          id={id('name')}
          className="input mono"
          value={draft.name}
          onChange={(e) => set('name', e.target.value)}
          required
          maxLength={32}
          autoCapitalize="none"
          spellCheck={false}
          {...describedBy(id('name'), err('name'))}
        />
      </FormField>
      <FormField id={id('algorithm')} label="Algorithm" error={err('algorithm')}>
        <select id={id('algorithm')} className="input" value={draft.algorithm} onChange={(e) => set('algorithm', e.target.value as LimitDraft['algorithm'])} {...describedBy(id('algorithm'), err('algorithm'))}>
          {ALGORITHMS.map((a) => (
            <option key={a} value={a}>
              {formatAlgorithm(a)}
            </option>
          ))}
        </select>
      </FormField>
      <FormField id={id('limit')} label="Limit" error={err('limit')}>
        <input
          id={id('limit')}
          className="input"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          required
          value={draft.limit}
          onChange={(e) => set('limit', e.target.value)}
          {...describedBy(id('limit'), err('limit'))}
        />
      </FormField>
      <FormField id={id('window')} label="Per window" error={err('windowMs')}>
        <div className="window-input">
          <input
            id={id('window')}
            className="input"
            type="number"
            inputMode="decimal"
            min={0}
            step="any"
            required
            value={draft.windowValue}
            onChange={(e) => set('windowValue', e.target.value)}
            {...describedBy(id('window'), err('windowMs'))}
          />
          <select aria-label="Window unit" className="input" value={draft.windowUnit} onChange={(e) => set('windowUnit', e.target.value as LimitDraft['windowUnit'])}>
            {WINDOW_UNITS.map((u) => (
              <option key={u.id} value={u.id}>
                {u.label}
              </option>
            ))}
          </select>
        </div>
      </FormField>
      <FormField id={id('burst')} label="Burst (optional)" error={err('burst')}>
        <input
          id={id('burst')}
          className="input"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          placeholder="default"
          value={draft.burst}
          onChange={(e) => set('burst', e.target.value)}
          {...describedBy(id('burst'), err('burst'))}
        />
      </FormField>
      <FormField id={id('scope')} label="Counted per" error={err('scope')}>
        <select id={id('scope')} className="input" value={draft.scope} onChange={(e) => set('scope', e.target.value as LimitDraft['scope'])}>
          {LIMIT_SCOPES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </FormField>
      {/* Only a leaky bucket can delay a request until it fits (the API refuses shaping elsewhere). */}
      {draft.algorithm === 'leaky_bucket' && (
        <label className="checkbox">
          <input type="checkbox" checked={draft.shaping} onChange={(e) => set('shaping', e.target.checked)} />
          Shape (delay instead of reject)
        </label>
      )}
      {onRemove && (
        <div>
          <button type="button" className="button button--secondary button--small" onClick={onRemove} aria-label={`Remove limit ${draft.name}`}>
            Remove
          </button>
        </div>
      )}
    </div>
  );
}
