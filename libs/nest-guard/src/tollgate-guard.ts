import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InvalidLimitParamsError } from '@tollgate/rate-limit';
import { RATE_LIMIT_COST_METADATA, RATE_LIMITS_METADATA } from './decorators';
import { DelayQueue } from './delay-queue';
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

/** A route's decorators, read once per (handler, controller). */
interface RouteOptions {
  cost: number;
  /** The decorator's own array, the same on every request (the verifier caches by it). */
  limits: readonly string[] | undefined;
}

/** Every shaped request of the process waits here: one timer in all, none per request. */
const shapingDelays = new DelayQueue();

const RATE_LIMITED_DETAIL = 'A rate limit of this API key is exhausted; retry after the time in Retry-After.';
const NEVER_FITS_DETAIL = 'This request costs more than a rate limit of this API key can ever admit; retrying it will not help.';
const QUOTA_EXCEEDED_DETAIL = 'The quota of this API key for this period is used up; retry after the time in Retry-After.';
const QUOTA_NEVER_FITS_DETAIL = 'This request costs more than the whole quota of this API key; retrying it will not help.';

/**
 * Enforces an API key on a route: 401 missing/unknown key, 403 disabled/expired, 429 rate limited
 * or quota exceeded, 503 when the store is down and the key's failMode is closed. Every header of
 * the answer (rate limits, Retry-After, WWW-Authenticate) is set on the reply here, whatever the
 * outcome; refusals then throw GuardRejection. Shaped requests (leaky bucket, shaping) are held
 * for their delay in a shared delay queue, then let through.
 */
@Injectable()
export class TollgateGuard implements CanActivate {
  private readonly routes = new WeakMap<object, WeakMap<object, RouteOptions>>();

  constructor(
    private readonly verifier: KeyVerifier,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<GuardedRequest>();
    const reply = http.getResponse<ReplyLike>();
    const route = this.route(context);

    const secret = extractApiKey(request.headers);
    if (secret === undefined) {
      this.setUnknownKeyHeaders(reply);
      reply.header('www-authenticate', 'Bearer');
      throw new GuardRejection(401, 'UNAUTHORIZED', 'An API key is required: send Authorization: Bearer <key> or X-API-Key.', requestIdOf(request));
    }
    let result: VerificationResult;
    try {
      result = await this.verifier.verify(secret, route);
    } catch (err) {
      if (err instanceof InvalidLimitParamsError) throw err;
      // The key lookup (the host's database) failed: nothing is known about this key.
      this.setUnknownKeyHeaders(reply);
      reply.header('retry-after', '1');
      throw new GuardRejection(503, 'SERVICE_UNAVAILABLE', 'The API key could not be checked right now; retry shortly.', requestIdOf(request));
    }
    request.tollgate = result;
    const headers = verificationHeaders(result);
    for (const name in headers) reply.header(name, headers[name]);

    if (result.valid) {
      if (result.delayMs !== undefined && result.delayMs > 0) await shapingDelays.wait(result.delayMs);
      return true;
    }
    const [status, code, detail] = refusal(result);
    if (status === 401) reply.header('www-authenticate', 'Bearer');
    else if (status === 503) reply.header('retry-after', '1');
    throw new GuardRejection(status, code, detail, requestIdOf(request));
  }

  /** @RateLimitCost and @RateLimits of this route, read through the Reflector once. */
  private route(context: ExecutionContext): RouteOptions {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byController = this.routes.get(handler);
    let route = byController?.get(controller);
    if (route === undefined) {
      const targets = [handler, controller];
      route = {
        cost: this.reflector.getAllAndOverride<number | undefined>(RATE_LIMIT_COST_METADATA, targets) ?? 1,
        limits: this.reflector.getAllAndOverride<string[] | undefined>(RATE_LIMITS_METADATA, targets),
      };
      if (byController === undefined) {
        byController = new WeakMap();
        this.routes.set(handler, byController);
      }
      byController.set(controller, route);
    }
    return route;
  }

  /** No key is known: the verifier's defaultPolicy, if it has one, with r=0;t=0. */
  private setUnknownKeyHeaders(reply: ReplyLike): void {
    const policy = this.verifier.defaultPolicy;
    if (policy === undefined) return;
    const headers = verificationHeaders({ valid: false, code: 'NOT_FOUND', limits: [], policy, nowMs: Date.now() });
    for (const name in headers) reply.header(name, headers[name]);
  }
}

function requestIdOf(request: GuardedRequest): string {
  return request.id === undefined ? '' : String(request.id);
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
      return [429, 'QUOTA_EXCEEDED', result.neverFits === true ? QUOTA_NEVER_FITS_DETAIL : QUOTA_EXCEEDED_DETAIL];
    default:
      return [429, 'RATE_LIMITED', result.neverFits === true ? NEVER_FITS_DETAIL : RATE_LIMITED_DETAIL];
  }
}
