import { z } from 'zod';

/** Every machine-readable error code the API can answer with. */
export const ERROR_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'CONFLICT',
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'KEY_DISABLED',
  'KEY_EXPIRED',
  'STORE_UNAVAILABLE',
  'SERVICE_UNAVAILABLE',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const ProblemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string(),
  code: z.enum(ERROR_CODES),
  requestId: z.string(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof ProblemSchema>;
export type FieldError = { path: string; message: string };

/**
 * Turns zod issues into the contract's `errors` list, naming each field by a dotted path: an
 * unknown field is named itself (`limits.0.colour`), one error each.
 */
export function fieldErrors(error: z.ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: dotted([...issue.path, key]), message: 'unknown field' }));
    return [{ path: dotted(issue.path), message: issue.message }];
  });
}

function dotted(path: readonly PropertyKey[]): string {
  return path.length ? path.map(String).join('.') : '(root)';
}

const PROBLEM_TITLES: Record<number, string> = {
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

/**
 * The one RFC 9457 body of every Tollgate error, from the API's filter and the guard alike.
 * `type` is a stable URI per code so clients can branch on it.
 */
export function problemDocument(status: number, code: ErrorCode, detail: string, requestId: string, errors?: FieldError[]): Problem {
  return {
    type: `https://tollgate.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
    title: PROBLEM_TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    requestId,
    ...(errors && errors.length ? { errors } : {}),
  };
}
