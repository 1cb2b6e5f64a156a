import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { NoQuerySchema, WebhookInputSchema } from '@tollgate/contracts';
import type { z } from 'zod';
import type { AuditContext } from '../auth/actor';
import { Audit } from '../auth/actor.decorator';
import { IdPipe } from '../http/id.pipe';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { WebhooksService } from './webhooks.service';

@Controller('v1/webhooks')
export class WebhooksController {
  constructor(private readonly webhooks: WebhooksService) {}

  @Post()
  create(@Body(new ZodValidationPipe(WebhookInputSchema)) body: z.output<typeof WebhookInputSchema>, @Audit() audit: AuditContext) {
    return this.webhooks.create(body, audit);
  }

  @Get()
  // No filters here: an unknown query field is a 400 naming it, as on every other list, not ignored.
  async list(@Query(new ZodValidationPipe(NoQuerySchema, 'query')) _query: Record<string, never>) {
    return { items: await this.webhooks.list() };
  }

  @Get(':id')
  get(@Param('id', new IdPipe('Webhook')) id: string) {
    return this.webhooks.get(id);
  }

  @Get(':id/deliveries')
  async deliveries(@Param('id', new IdPipe('Webhook')) id: string) {
    return { items: await this.webhooks.deliveries(id) };
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@Param('id', new IdPipe('Webhook')) id: string, @Audit() audit: AuditContext) {
    await this.webhooks.delete(id, audit);
  }
}
