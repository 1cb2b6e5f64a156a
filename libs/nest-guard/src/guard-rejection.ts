import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { PROBLEM_CONTENT_TYPE, problemDocument, type ErrorCode, type Problem } from '@tollgate/contracts';

/** The contract's error codes the guard answers with. */
export type GuardRejectionCode = Extract<ErrorCode, 'UNAUTHORIZED' | 'KEY_DISABLED' | 'KEY_EXPIRED' | 'RATE_LIMITED' | 'QUOTA_EXCEEDED' | 'STORE_UNAVAILABLE' | 'SERVICE_UNAVAILABLE'>;

/** RFC 9457 body, the contract's Problem with one of the guard's codes. */
export type GuardProblem = Problem & { code: GuardRejectionCode };

/** The reply methods used; a Fastify reply and an Express response both have them. */
export interface ReplyLike {
  header(name: string, value: string): unknown;
  status(code: number): unknown;
  send(payload: string): unknown;
  readonly sent?: boolean;
  readonly headersSent?: boolean;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Thrown by TollgateGuard for every refusal: status, code, a caller-safe detail and the request id,
 * with its problem+json body built once (also the HttpException response, so Nest's default
 * filter answers with the same fields, as plain JSON). TollgateGuard sets every header of the
 * answer (rate-limit headers, Retry-After, WWW-Authenticate) on the reply itself before throwing,
 * so any filter sends them; `headers` is empty then, and only carries what a host that throws a
 * GuardRejection of its own wants sent with it. Register GuardRejectionFilter, or map it in your
 * own filter, for problem+json.
 */
export class GuardRejection extends HttpException {
  readonly problem: GuardProblem;

  constructor(
    readonly statusCode: number,
    readonly code: GuardRejectionCode,
    readonly detail: string,
    readonly requestId = '',
    readonly headers: Readonly<Record<string, string>> = NO_HEADERS,
  ) {
    const problem = Object.assign(problemDocument(statusCode, code, detail, requestId), { code });
    super(problem, statusCode);
    this.problem = problem;
  }

  /** The problem+json body; with another request id when given one. */
  toProblem(requestId = this.requestId): GuardProblem {
    return requestId === this.problem.requestId ? this.problem : { ...this.problem, requestId };
  }
}

/** Writes the rejection as problem+json (the guard has already set its headers on the reply). */
export function sendGuardRejection(rejection: GuardRejection, reply: ReplyLike, requestId = rejection.requestId): void {
  if (reply.sent === true || reply.headersSent === true) return;
  for (const name in rejection.headers) reply.header(name, rejection.headers[name]);
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
