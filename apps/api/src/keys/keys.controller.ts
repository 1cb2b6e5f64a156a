import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { KeyInputSchema, KeyPatchSchema, ListKeysQuerySchema, RotateKeyInputSchema } from '@tollgate/contracts';
import type { z } from 'zod';
import type { AuditContext } from '../auth/actor';
import { Audit } from '../auth/actor.decorator';
import { IdPipe } from '../http/id.pipe';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { KeysService } from './keys.service';

@Controller('v1/keys')
export class KeysController {
  constructor(private readonly keys: KeysService) {}

  @Post()
  create(@Body(new ZodValidationPipe(KeyInputSchema)) body: z.output<typeof KeyInputSchema>, @Audit() audit: AuditContext) {
    return this.keys.create(body, audit);
  }

  @Get()
  list(@Query(new ZodValidationPipe(ListKeysQuerySchema, 'query')) query: z.output<typeof ListKeysQuerySchema>) {
    return this.keys.list(query);
  }

  @Get(':id')
  get(@Param('id', new IdPipe('Key')) id: string) {
    return this.keys.get(id);
  }

  @Patch(':id')
  update(@Param('id', new IdPipe('Key')) id: string, @Body(new ZodValidationPipe(KeyPatchSchema)) body: z.output<typeof KeyPatchSchema>, @Audit() audit: AuditContext) {
    return this.keys.update(id, body, audit);
  }

  @Post(':id/rotate')
  rotate(@Param('id', new IdPipe('Key')) id: string, @Body(new ZodValidationPipe(RotateKeyInputSchema)) body: z.output<typeof RotateKeyInputSchema>, @Audit() audit: AuditContext) {
    return this.keys.rotate(id, body.gracePeriodMs ?? 0, audit);
  }

  @Delete(':id')
  @HttpCode(204)
  async revoke(@Param('id', new IdPipe('Key')) id: string, @Audit() audit: AuditContext) {
    await this.keys.revoke(id, audit);
  }
}
