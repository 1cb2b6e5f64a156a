'use client';

import { DEFAULT_QUOTA_THRESHOLDS, WEBHOOK_EVENTS, type WebhookEvent, type WebhookInput } from '@tollgate/contracts';
import { useState, type FormEvent } from 'react';
import { describedBy, FormField } from '@/components/form-field';
import { ProblemAlert } from '@/components/problem-alert';
import { api } from '@/lib/api-client';
import { errorLookup, formProblem, placedIn } from '@/lib/form-errors';
import { validationProblem } from '@/lib/problem';
import { useApiAction } from '@/lib/use-api-action';
import { EVENT_LABELS, parseThresholds } from '@/lib/webhooks';

/** What POST /v1/webhooks answers: the webhook and its signing secret, this once. */
export interface CreatedWebhook {
  id: string;
  url: string;
  secret: string;
}

const PLACED = placedIn(['url', 'events', 'thresholds'], false);

/** URL, events and quota thresholds; calls back with the new webhook and its secret. */
export function CreateWebhookForm({ onCreated, onCancel }: { onCreated: (webhook: CreatedWebhook) => void; onCancel: () => void }) {
  const [events, setEvents] = useState<WebhookEvent[]>(['quota.threshold']);
  const { pending, problem, setProblem, run } = useApiAction();
  const errorFor = errorLookup(problem?.errors);
  const errorForThresholds = errorFor('thresholds') ?? problem?.errors.find((e) => e.path.startsWith('thresholds.'))?.message;

  const toggle = (event: WebhookEvent, on: boolean) => setEvents((current) => (on ? WEBHOOK_EVENTS.filter((e) => e === event || current.includes(e)) : current.filter((e) => e !== event)));

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const url = String(data.get('url') ?? '').trim();
    const local: { path: string; message: string }[] = [];
    if (events.length === 0) local.push({ path: 'events', message: 'Choose at least one event.' });
    let thresholds: number[] | undefined;
    if (events.includes('quota.threshold')) {
      const parsed = parseThresholds(String(data.get('thresholds') ?? ''));
      if ('error' in parsed) local.push({ path: 'thresholds', message: parsed.error });
      else thresholds = parsed.values;
    }
    if (local.length) {
      setProblem(validationProblem(local));
      return;
    }
    const input: WebhookInput = { url, events, ...(thresholds ? { thresholds } : {}) };
    await run(async () => onCreated(await api.post<CreatedWebhook>('/v1/webhooks', input)));
  }

  return (
    <form className="form" onSubmit={submit}>
      {problem && <ProblemAlert problem={formProblem(problem, (p) => PLACED(p) || p.startsWith('thresholds.') || p.startsWith('events.'))} />}
      <FormField id="webhook-url" label="Endpoint URL" error={errorFor('url')} hint="Tollgate POSTs signed JSON events here.">
        <input
          id="webhook-url"
          name="url"
          type="url"
          className="input mono"
          required
          maxLength={2048}
          placeholder="https://example.com/hooks/tollgate"
          autoCapitalize="none"
          spellCheck={false}
          {...describedBy('webhook-url', errorFor('url'), true)}
        />
      </FormField>
      <fieldset className="fieldset" aria-describedby={errorFor('events') ? 'webhook-events-error' : undefined}>
        <legend>Events</legend>
        {WEBHOOK_EVENTS.map((name) => (
          <label key={name} className="checkbox">
            <input type="checkbox" name="events" value={name} checked={events.includes(name)} onChange={(e) => toggle(name, e.target.checked)} />
            <span>
              {EVENT_LABELS[name].title} <span className="mono muted">{name}</span>
              <span className="hint" style={{ display: 'block' }}>
                {EVENT_LABELS[name].hint}
              </span>
            </span>
          </label>
        ))}
        {errorFor('events') && (
          <p id="webhook-events-error" className="field-error">
            {errorFor('events')}
          </p>
        )}
      </fieldset>
      {events.includes('quota.threshold') && (
        <FormField id="webhook-thresholds" label="Quota thresholds (%)" error={errorForThresholds} hint="Comma-separated percentages of a key's quota, each raised once per period.">
          <input
            id="webhook-thresholds"
            name="thresholds"
            className="input"
            inputMode="numeric"
            defaultValue={DEFAULT_QUOTA_THRESHOLDS.join(', ')}
            {...describedBy('webhook-thresholds', errorForThresholds, true)}
          />
        </FormField>
      )}
      <div className="form-actions">
        <button type="button" className="button button--secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button" disabled={pending}>
          {pending ? 'Creating…' : 'Create webhook'}
        </button>
      </div>
    </form>
  );
}
