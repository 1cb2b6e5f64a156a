import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator';
import { HealthService } from './health.service';

@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  /** 200 when Postgres and Redis both answer (status "degraded" if rate limiting runs on its fail mode); 503 naming what is down. No auth. */
  @Get()
  async check(@Res({ passthrough: true }) reply: FastifyReply) {
    const report = await this.health.check();
    if (report.status === 'down') reply.status(503);
    return report;
  }
}
