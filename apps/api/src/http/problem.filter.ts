import { ArgumentsHost, Catch, ExceptionFilter, HttpException, NotFoundException } from '@nestjs/common';
import { PROBLEM_CONTENT_TYPE, problemDocument as problem, type ErrorCode } from '@tollgate/contracts';
import { GuardRejection } from '@tollgate/nest-guard';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AllowedMethods } from './allowed-methods';
import { ApiError } from './api-error';
import { unreachableStore } from './unreachable-store';

interface FastifyLikeError {
  statusCode?: number;
  code?: string;
  message?: string;
}

const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'VALIDATION_FAILED',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * Maps anything thrown to a problem+json answer. Known errors keep their status and message;
 * Fastify's body-parsing errors become 400/413/415; everything else is a 500 whose details go to
 * the log (with the request id) and never to the caller.
 */
export function toProblemResponse(exception: unknown, requestId: string) {
  if (exception instanceof ApiError) {
    return { status: exception.status, headers: exception.headers, body: problem(exception.status, exception.code, exception.detail, requestId, exception.errors) };
  }
  if (exception instanceof GuardRejection) {
    return { status: exception.statusCode, headers: { ...exception.headers }, body: problem(exception.statusCode, exception.code, exception.detail, requestId) };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const response = exception.getResponse();
    const message = typeof response === 'string' ? response : ((response as { message?: unknown }).message ?? exception.message);
    const detail = Array.isArray(message) ? message.join('; ') : String(message);
    // Nest re-wraps Fastify's body-parsing errors as plain HttpExceptions: recognise them here.
    if (status === 413 || status === 415 || (status === 400 && /JSON/.test(detail))) {
      return bodyProblem(status, detail, requestId);
    }
    return { status, headers: undefined, body: problem(status, CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION_FAILED'), detail, requestId) };
  }
  const fastifyError = exception as FastifyLikeError;
  if (fastifyError && typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    const status = fastifyError.statusCode;
    if (status === 413 || status === 415 || (status === 400 && /JSON/.test(fastifyError.message ?? ''))) {
      return bodyProblem(status, fastifyError.message ?? '', requestId);
    }
    return { status, headers: undefined, body: problem(status, CODE_BY_STATUS[status] ?? 'VALIDATION_FAILED', fastifyError.message ?? 'Bad request.', requestId) };
  }
  const store = unreachableStore(exception);
  if (store !== undefined) {
    return { status: 503, headers: { 'retry-after': '1' }, body: problem(503, 'SERVICE_UNAVAILABLE', `${store} cannot be reached right now; retry shortly.`, requestId) };
  }
  return { status: 500, headers: undefined, body: problem(500, 'INTERNAL', 'Something went wrong on our side. Quote the request id when reporting it.', requestId) };
}

function bodyProblem(status: number, message: string, requestId: string) {
  if (status === 413) {
    return { status, headers: undefined, body: problem(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than 64 KiB.', requestId, [{ path: '(body)', message: 'larger than 65536 bytes' }]) };
  }
  if (status === 415) {
    return { status, headers: undefined, body: problem(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.', requestId, [{ path: '(body)', message: 'content-type must be application/json' }]) };
  }
  return { status: 400, headers: undefined, body: problem(400, 'MALFORMED_JSON', 'The request body is not valid JSON.', requestId, [{ path: '(body)', message: message || 'invalid JSON' }]) };
}

@Catch()
export class ProblemFilter implements ExceptionFilter {
  /** @param allowedMethods the routes' methods: a path known under other methods answers 405. */
  constructor(private readonly allowedMethods?: AllowedMethods) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const context = host.switchToHttp();
    const request = context.getRequest<FastifyRequest>();
    const reply = context.getResponse<FastifyReply>();
    sendProblem(this.methodNotAllowed(exception, request) ?? exception, request, reply);
  }

  /** The router's 404 for a path that other methods do answer: a 405 saying which. */
  private methodNotAllowed(exception: unknown, request: FastifyRequest): ApiError | undefined {
    if (!this.allowedMethods || !request.is404 || !(exception instanceof NotFoundException)) return undefined;
    const allowed = this.allowedMethods.for(request.url);
    if (allowed.length === 0 || allowed.includes(request.method)) return undefined;
    const list = allowed.join(', ');
    return new ApiError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not supported here; this path answers ${list}.`, undefined, { allow: list });
  }
}

export function sendProblem(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const { status, headers, body } = toProblemResponse(exception, String(request.id));
  // Refusals we answer on purpose (a 503 STORE_UNAVAILABLE while Redis is away) are not faults:
  // the guard logs its state changes once; a store out of reach is one warning line per request
  // (/health says which); only unexpected errors are logged with their stack.
  if (status >= 500 && !(exception instanceof ApiError) && !(exception instanceof GuardRejection)) {
    if (status === 503) request.log.warn(`request failed: ${body.detail}`);
    else request.log.error({ err: exception }, 'request failed');
  }
  if (reply.sent) return;
  // A route's own headers may already be set (export.csv's attachment): a problem is never a download.
  reply.removeHeader('content-disposition');
  if (headers) for (const [name, value] of Object.entries(headers)) reply.header(name, value);
  reply.status(status).header('content-type', PROBLEM_CONTENT_TYPE).send(body);
}
