import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { NoQuerySchema, PlanInputSchema, PlanPatchSchema } from '@tollgate/contracts';
import type { z } from 'zod';
import type { AuditContext } from '../auth/actor';
import { Audit } from '../auth/actor.decorator';
import { IdPipe } from '../http/id.pipe';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { PlansService } from './plans.service';

@Controller('v1/plans')
export class PlansController {
  constructor(private readonly plans: PlansService) {}

  @Post()
  create(@Body(new ZodValidationPipe(PlanInputSchema)) body: z.output<typeof PlanInputSchema>, @Audit() audit: AuditContext) {
    return this.plans.create(body, audit);
  }

  @Get()
  // No filters here: an unknown query field is a 400 naming it, as on every other list, not ignored.
  async list(@Query(new ZodValidationPipe(NoQuerySchema, 'query')) _query: Record<string, never>) {
    return { items: await this.plans.list() };
  }

  @Get(':id')
  get(@Param('id', new IdPipe('Plan')) id: string) {
    return this.plans.get(id);
  }

  @Patch(':id')
  update(@Param('id', new IdPipe('Plan')) id: string, @Body(new ZodValidationPipe(PlanPatchSchema)) body: z.output<typeof PlanPatchSchema>, @Audit() audit: AuditContext) {
    return this.plans.update(id, body, audit);
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@Param('id', new IdPipe('Plan')) id: string, @Audit() audit: AuditContext) {
    await this.plans.delete(id, audit);
  }
}
