import type { ErrorCode, FieldError, Problem } from '@tollgate/contracts';

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Builds an RFC 9457 body. `type` is a stable URI per code so clients can branch on it. */
export function problem(status: number, code: ErrorCode, detail: string, requestId: string, errors?: FieldError[]): Problem {
  return {
    type: `https://tollgate.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    requestId,
    ...(errors && errors.length ? { errors } : {}),
  };
}
