/** Field errors by the API's dotted paths (`name`, `limits.0.windowMs`), for showing next to inputs. */
import type { FieldError } from '@tollgate/contracts';
import { restatesFields, type ProblemInfo } from './problem';

export type ErrorFor = (path: string) => string | undefined;

export function errorLookup(...lists: (readonly FieldError[] | undefined)[]): ErrorFor {
  const byPath = new Map<string, string>();
  for (const list of lists) for (const e of list ?? []) if (!byPath.has(e.path)) byPath.set(e.path, e.message);
  return (path) => byPath.get(path);
}

/** Errors not shown next to any input (so the form's alert lists them). */
export function unplacedErrors(errors: readonly FieldError[], placed: (path: string) => boolean): FieldError[] {
  return errors.filter((e) => !placed(e.path));
}

/** Paths the limits editor shows next to its inputs. */
export const LIMIT_FIELD_PATH = /^limits\.\d+\.(name|algorithm|limit|windowMs|burst|scope)$/;

/** A predicate for `unplacedErrors`: exact field names, plus the limits editor's paths. */
export function placedIn(fields: readonly string[], withLimits = true): (path: string) => boolean {
  return (path) => fields.includes(path) || (withLimits && LIMIT_FIELD_PATH.test(path));
}

/**
 * The alert under a form: the field errors no input shows, and no detail that repeats the ones the
 * inputs do show (a 400's detail lists every field error, so each would read twice).
 */
export function formProblem(problem: ProblemInfo, placed: (path: string) => boolean): ProblemInfo {
  const errors = unplacedErrors(problem.errors, placed);
  if (!restatesFields(problem) || errors.length === problem.errors.length) return { ...problem, errors };
  return { ...problem, detail: errors.length ? 'Check the highlighted fields, and:' : 'Check the highlighted fields.', errors };
}
