/** Form state for one rate limit: text inputs and a window unit, converted to and from `LimitInput`. */
import type { ALGORITHMS, LIMIT_SCOPES, Limit, LimitInput } from '@tollgate/contracts';

export type Algorithm = (typeof ALGORITHMS)[number];
export type LimitScope = (typeof LIMIT_SCOPES)[number];

export const WINDOW_UNITS = [
  { id: 'ms', label: 'ms', ms: 1 },
  { id: 's', label: 's', ms: 1000 },
  { id: 'min', label: 'min', ms: 60_000 },
  { id: 'h', label: 'h', ms: 3_600_000 },
  { id: 'd', label: 'd', ms: 86_400_000 },
] as const;
export type WindowUnit = (typeof WINDOW_UNITS)[number]['id'];

export interface LimitDraft {
  /** React key only; never sent. */
  uid: string;
  name: string;
  algorithm: Algorithm;
  limit: string;
  windowValue: string;
  windowUnit: WindowUnit;
  burst: string;
  scope: LimitScope;
  shaping: boolean;
}

let counter = 0;
const uid = () => `limit-${++counter}`;

function bestUnit(windowMs: number): { value: number; unit: WindowUnit } {
  for (const unit of [...WINDOW_UNITS].reverse()) {
    if (windowMs >= unit.ms && windowMs % unit.ms === 0) return { value: windowMs / unit.ms, unit: unit.id };
  }
  return { value: windowMs, unit: 'ms' };
}

export function toDraft(limit: LimitInput | Limit): LimitDraft {
  const window = bestUnit(limit.windowMs);
  return {
    uid: uid(),
    name: limit.name,
    algorithm: limit.algorithm,
    limit: String(limit.limit),
    windowValue: String(window.value),
    windowUnit: window.unit,
    burst: limit.burst === undefined || limit.burst === null ? '' : String(limit.burst),
    scope: limit.scope ?? 'key',
    shaping: limit.shaping ?? false,
  };
}

export function newDraft(existingNames: string[]): LimitDraft {
  const name = ['burst', 'sustained', 'daily'].find((n) => !existingNames.includes(n)) ?? `limit${existingNames.length + 1}`;
  return { uid: uid(), name, algorithm: 'token_bucket', limit: '10', windowValue: '1', windowUnit: 's', burst: '', scope: 'key', shaping: false };
}

/** Empty or non-numeric text becomes NaN, which the API rejects with a field error on that path. */
function toInt(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

export function fromDraft(draft: LimitDraft): LimitInput {
  const unitMs = WINDOW_UNITS.find((u) => u.id === draft.windowUnit)?.ms ?? 1;
  const limit: LimitInput = {
    name: draft.name.trim(),
    algorithm: draft.algorithm,
    limit: toInt(draft.limit),
    windowMs: Math.round(toInt(draft.windowValue) * unitMs),
    scope: draft.scope,
  };
  if (draft.burst.trim() !== '') limit.burst = toInt(draft.burst);
  if (draft.shaping && draft.algorithm === 'leaky_bucket') limit.shaping = true;
  return limit;
}

/** Problems the browser can catch before a round trip, keyed like the API's field paths. */
export function checkDrafts(drafts: LimitDraft[], path: string): { path: string; message: string }[] {
  const errors: { path: string; message: string }[] = [];
  const seen = new Set<string>();
  drafts.forEach((draft, index) => {
    const at = `${path}.${index}`;
    if (!/^[a-z][a-z0-9_-]{0,31}$/.test(draft.name.trim())) errors.push({ path: `${at}.name`, message: 'lowercase letters, digits, "_" or "-", starting with a letter' });
    else if (seen.has(draft.name.trim())) errors.push({ path: `${at}.name`, message: `duplicate limit name "${draft.name.trim()}"` });
    seen.add(draft.name.trim());
    if (!/^\d+$/.test(draft.limit.trim()) || Number(draft.limit) < 1) errors.push({ path: `${at}.limit`, message: 'a whole number, at least 1' });
    if (!/^\d+(\.\d+)?$/.test(draft.windowValue.trim()) || Number(draft.windowValue) <= 0) errors.push({ path: `${at}.windowMs`, message: 'a positive duration' });
    if (draft.burst.trim() !== '' && (!/^\d+$/.test(draft.burst.trim()) || Number(draft.burst) < 1)) errors.push({ path: `${at}.burst`, message: 'a whole number, at least 1, or empty' });
  });
  return errors;
}
