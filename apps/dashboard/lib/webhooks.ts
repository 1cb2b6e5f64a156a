/** Display helpers for webhooks, shared by the server page and its client parts. */
import type { WebhookDelivery, WebhookEvent } from '@tollgate/contracts';

export const EVENT_LABELS: Record<WebhookEvent, { title: string; hint: string }> = {
  'quota.threshold': { title: 'Quota threshold', hint: "A key's usage crosses a percentage of its quota." },
  'key.expiring': { title: 'Key expiring', hint: 'A key expires within the next days.' },
  'ratelimit.exceeded': { title: 'Rate limit exceeded', hint: 'A key starts being rate limited.' },
};

export const DELIVERY_BADGE: Record<WebhookDelivery['status'], string> = {
  pending: 'badge badge--warning',
  succeeded: 'badge badge--success',
  failed: 'badge badge--danger',
};

/** "80, 90,100 " -> [80, 90, 100]; a message instead when it is not a list of 1..100. */
export function parseThresholds(text: string): { values: number[] } | { error: string } {
  const parts = text
    .split(/[\s,;]+/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) return { error: 'Give at least one percentage, e.g. 80, 90, 100.' };
  const values: number[] = [];
  for (const part of parts) {
    const value = Number(part.replace(/%$/, ''));
    if (!Number.isInteger(value) || value < 1 || value > 100) return { error: `“${part}” is not a whole percentage from 1 to 100.` };
    if (values.includes(value)) return { error: `${value} is listed twice.` };
    values.push(value);
  }
  if (values.length > 10) return { error: 'At most 10 thresholds.' };
  return { values: values.sort((a, b) => a - b) };
}
