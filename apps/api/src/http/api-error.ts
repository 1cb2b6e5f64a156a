import type { ErrorCode, FieldError } from '@tollgate/contracts';

/** An error the API answers on purpose: status, code and a message safe to show the caller. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
  }

  /** A 400 naming each field; the detail, unless given, names them too (as the validation pipe's does). */
  static validation(errors: FieldError[], detail?: string): ApiError {
    return new ApiError(400, 'VALIDATION_FAILED', detail ?? `Invalid request: ${errors.map((error) => `${error.path} ${error.message}`).join('; ')}`, errors);
  }

  static notFound(what: string): ApiError {
    return new ApiError(404, 'NOT_FOUND', `${what} not found.`);
  }

  static conflict(detail: string, errors?: FieldError[]): ApiError {
    return new ApiError(409, 'CONFLICT', detail, errors);
  }
}
