import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { PROBLEM_CONTENT_TYPE, problemDocument } from '@tollgate/contracts';

export type GuardRejectionCode = 'UNAUTHORIZED' | 'KEY_DISABLED' | 'KEY_EXPIRED' | 'RATE_LIMITED' | 'QUOTA_EXCEEDED' | 'STORE_UNAVAILABLE' | 'SERVICE_UNAVAILABLE';

/** RFC 9457 body, the shape of the Tollgate contract's errors. */
export interface GuardProblem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: GuardRejectionCode;
  requestId: string;
}

export { PROBLEM_CONTENT_TYPE };

/** The reply methods used; a Fastify reply and an Express response both have them. */
export interface ReplyLike {
  header(name: string, value: string): unknown;
  status(code: number): unknown;
  send(payload: string): unknown;
  readonly sent?: boolean;
  readonly headersSent?: boolean;
}

/**
 * Thrown by TollgateGuard for every refusal: status, code, a caller-safe detail and the headers
 * to send (rate-limit headers, Retry-After, WWW-Authenticate). The guard has already set the
 * headers on the reply, so even Nest's default filter answers with them (as plain JSON);
 * register GuardRejectionFilter, or map it in your own filter, for problem+json.
 */
export class GuardRejection extends HttpException {
  constructor(
    readonly statusCode: number,
    readonly code: GuardRejectionCode,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly requestId = '',
  ) {
    super(problemBody(statusCode, code, detail, requestId), statusCode);
  }

  toProblem(requestId = this.requestId): GuardProblem {
    return problemBody(this.statusCode, this.code, this.detail, requestId);
  }
}

function problemBody(status: number, code: GuardRejectionCode, detail: string, requestId: string): GuardProblem {
  return problemDocument(status, code, detail, requestId) as GuardProblem;
}

/** Writes the rejection as problem+json with its headers. */
export function sendGuardRejection(rejection: GuardRejection, reply: ReplyLike, requestId = rejection.requestId): void {
  if (reply.sent === true || reply.headersSent === true) return;
  for (const [name, value] of Object.entries(rejection.headers)) reply.header(name, value);
  reply.header('content-type', PROBLEM_CONTENT_TYPE);
  reply.status(rejection.statusCode);
  reply.send(JSON.stringify(rejection.toProblem(requestId)));
}

/** Renders GuardRejection as problem+json; register it globally or on guarded controllers. */
@Catch(GuardRejection)
export class GuardRejectionFilter implements ExceptionFilter<GuardRejection> {
  catch(rejection: GuardRejection, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<{ id?: unknown }>();
    const requestId = rejection.requestId || (request.id === undefined ? '' : String(request.id));
    sendGuardRejection(rejection, http.getResponse<ReplyLike>(), requestId);
  }
}
