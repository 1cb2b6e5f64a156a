import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { KeyInputSchema, KeyPatchSchema, ListKeysQuerySchema, RotateKeyInputSchema } from '@tollgate/contracts';
import type { z } from 'zod';
import type { AuditContext } from '../auth/actor';
import { Audit } from '../auth/actor.decorator';
import { ApiError } from '../http/api-error';
import { IdPipe } from '../http/id.pipe';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { KeysService } from './keys.service';

/**
 * A key id in the path. `verify` is not one: it is POST /v1/keys/verify, which the `:id` routes
 * would otherwise take for a key, answering a GET, PATCH or DELETE there with "Key not found".
 */
class KeyIdPipe extends IdPipe {
  constructor() {
    super('Key');
  }

  override transform(value: string): string {
    if (value === 'verify') throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'POST is the only method of /v1/keys/verify.', undefined, { allow: 'POST' });
    return super.transform(value);
  }
}

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
  get(@Param('id', new KeyIdPipe()) id: string) {
    return this.keys.get(id);
  }

  @Patch(':id')
  update(@Param('id', new KeyIdPipe()) id: string, @Body(new ZodValidationPipe(KeyPatchSchema)) body: z.output<typeof KeyPatchSchema>, @Audit() audit: AuditContext) {
    return this.keys.update(id, body, audit);
  }

  @Post(':id/rotate')
  rotate(@Param('id', new IdPipe('Key')) id: string, @Body(new ZodValidationPipe(RotateKeyInputSchema)) body: z.output<typeof RotateKeyInputSchema>, @Audit() audit: AuditContext) {
    return this.keys.rotate(id, body.gracePeriodMs ?? 0, audit);
  }

  @Delete(':id')
  @HttpCode(204)
  async revoke(@Param('id', new KeyIdPipe()) id: string, @Audit() audit: AuditContext) {
    await this.keys.revoke(id, audit);
  }
}
