import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InvalidLimitParamsError } from '@tollgate/rate-limit';
import { setTimeout as sleep } from 'node:timers/promises';
import { RATE_LIMIT_COST_METADATA, RATE_LIMITS_METADATA } from './decorators';
import { GuardRejection, type GuardRejectionCode, type ReplyLike } from './guard-rejection';
import type { VerificationResult } from './key-record';
import { KeyVerifier } from './key-verifier';
import { verificationHeaders } from './verification-headers';

type HeaderValue = string | string[] | undefined;

/** What the guard reads from the request and adds to it. */
export interface GuardedRequest {
  id?: unknown;
  headers: Record<string, HeaderValue>;
  tollgate?: VerificationResult;
}

/** The presented secret: `Authorization: Bearer <key>`, else `X-API-Key`. */
export function extractApiKey(headers: Record<string, HeaderValue>): string | undefined {
  const authorization = first(headers['authorization']);
  if (authorization !== undefined) {
    const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (match) return match[1];
  }
  const apiKey = first(headers['x-api-key'])?.trim();
  return apiKey ? apiKey : undefined;
}

function first(value: HeaderValue): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Enforces an API key on a route: 401 missing/unknown key, 403 disabled/expired, 429 rate limited
 * or quota exceeded, 503 when the store is down and the key's failMode is closed. Rate-limit
 * headers go on every answer (set on the reply directly); refusals throw GuardRejection.
 * Shaped requests (leaky bucket, shaping) are held for their delay, then let through.
 */
@Injectable()
export class TollgateGuard implements CanActivate {
  constructor(
    private readonly verifier: KeyVerifier,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<GuardedRequest>();
    const reply = http.getResponse<ReplyLike>();
    const requestId = request.id === undefined ? '' : String(request.id);
    const targets = [context.getHandler(), context.getClass()];
    const cost = this.reflector.getAllAndOverride<number | undefined>(RATE_LIMIT_COST_METADATA, targets) ?? 1;
    const limits = this.reflector.getAllAndOverride<string[] | undefined>(RATE_LIMITS_METADATA, targets);

    const secret = extractApiKey(request.headers);
    if (secret === undefined) {
      throw new GuardRejection(401, 'UNAUTHORIZED', 'An API key is required: send Authorization: Bearer <key> or X-API-Key.', { 'www-authenticate': 'Bearer' }, requestId);
    }
    let result: VerificationResult;
    try {
      result = await this.verifier.verify(secret, { cost, limits });
    } catch (err) {
      if (err instanceof InvalidLimitParamsError) throw err;
      // The key lookup (the host's database) failed: nothing is known about this key.
      throw new GuardRejection(503, 'SERVICE_UNAVAILABLE', 'The API key could not be checked right now; retry shortly.', { 'retry-after': '1' }, requestId);
    }
    request.tollgate = result;
    const headers = verificationHeaders(result);
    for (const [name, value] of Object.entries(headers)) reply.header(name, value);

    if (result.valid) {
      if (result.delayMs !== undefined && result.delayMs > 0) await sleep(result.delayMs);
      return true;
    }
    const [status, code, detail] = refusal(result);
    const extra: Record<string, string> = status === 401 ? { 'www-authenticate': 'Bearer' } : status === 503 ? { 'retry-after': '1' } : {};
    for (const [name, value] of Object.entries(extra)) reply.header(name, value);
    throw new GuardRejection(status, code, detail, { ...headers, ...extra }, requestId);
  }
}

function refusal(result: VerificationResult): [number, GuardRejectionCode, string] {
  if (result.storeUnavailable) return [503, 'STORE_UNAVAILABLE', 'Rate limits cannot be checked right now; retry shortly.'];
  switch (result.code) {
    case 'NOT_FOUND':
      return [401, 'UNAUTHORIZED', 'The API key is not valid.'];
    case 'DISABLED':
      return [403, 'KEY_DISABLED', 'The API key is disabled.'];
    case 'EXPIRED':
      return [403, 'KEY_EXPIRED', 'The API key has expired.'];
    case 'QUOTA_EXCEEDED':
      return [429, 'QUOTA_EXCEEDED', result.retryAfterMs === undefined ? 'This request costs more than the whole quota.' : 'The quota for this period is used up.'];
    default: {
      if (result.retryAfterMs === undefined) return [429, 'RATE_LIMITED', 'This request costs more than the rate limit can ever admit.'];
      const blocking = result.limits.filter((limit) => limit.retryAfterMs !== undefined).map((limit) => `"${limit.name}"`);
      const which = blocking.length > 0 ? ` ${blocking.join(', ')}` : '';
      return [429, 'RATE_LIMITED', `Rate limit${which} exceeded; retry after ${Math.ceil(result.retryAfterMs / 1000)} s.`];
    }
  }
}
