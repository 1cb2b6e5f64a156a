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

  static validation(errors: FieldError[], detail = 'The request is invalid.'): ApiError {
    return new ApiError(400, 'VALIDATION_FAILED', detail, errors);
  }

  static notFound(what: string): ApiError {
    return new ApiError(404, 'NOT_FOUND', `${what} not found.`);
  }

  static conflict(detail: string, errors?: FieldError[]): ApiError {
    return new ApiError(409, 'CONFLICT', detail, errors);
  }
}
