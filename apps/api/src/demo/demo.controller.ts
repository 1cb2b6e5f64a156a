import { Controller, Get, Req, UseGuards } from '@nestjs/common';
import { TollgateGuard, type GuardedRequest } from '@tollgate/nest-guard';
import { Public } from '../auth/public.decorator';

/**
 * A route behind the Tollgate guard, exactly as an API provider would put one: the key comes
 * from `Authorization: Bearer <key>` or `X-API-Key`, and every answer carries rate-limit headers.
 */
@Public()
@Controller('v1/demo')
export class DemoController {
  @Get('echo')
  @UseGuards(TollgateGuard)
  echo(@Req() request: GuardedRequest) {
    const verification = request.tollgate;
    return { ok: true, keyId: verification?.keyId, ownerId: verification?.ownerId ?? null, planId: verification?.planId, at: new Date().toISOString() };
  }
}
