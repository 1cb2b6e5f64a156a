import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { ApiError } from '../http/api-error';

/**
 * @nestjs/throttler names its header `Retry-After-<throttler>` for named throttlers; clients and
 * the contract expect the standard `Retry-After` and a problem+json body.
 */
@Injectable()
export class LoginThrottlerGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    const seconds = Math.max(1, detail.timeToBlockExpire);
    throw new ApiError(429, 'RATE_LIMITED', `Too many login attempts; try again in ${seconds} s.`, undefined, { 'retry-after': String(seconds) });
  }
}
