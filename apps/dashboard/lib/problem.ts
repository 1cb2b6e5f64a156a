/** A plain, serializable view of an API problem, so Server Components can hand it to the page. */
import { ApiProblem } from './api-client';

export interface ProblemInfo {
  status: number;
  code: string;
  title: string;
  detail: string;
  requestId?: string;
  errors: { path: string; message: string }[];
}

export function toProblemInfo(err: unknown): ProblemInfo {
  if (err instanceof ApiProblem) {
    return { status: err.status, code: err.code, title: err.title, detail: err.detail, requestId: err.requestId, errors: err.errors };
  }
  return { status: 0, code: 'INTERNAL', title: 'Unexpected error', detail: 'Something went wrong. Try again.', errors: [] };
}

/** Field errors found in the browser before any request, shaped like the API's 400. */
export function validationProblem(errors: { path: string; message: string }[], detail = 'Check the highlighted fields.'): ProblemInfo {
  return { status: 400, code: 'VALIDATION_FAILED', title: 'Invalid', detail, errors };
}

/** Whether a problem's detail only repeats its field errors, as a 400's does (`Invalid body: name must ...; ...`). */
export function restatesFields(problem: ProblemInfo): boolean {
  return problem.errors.length > 0 && problem.errors.every((error) => problem.detail.includes(`${error.path} ${error.message}`));
}
