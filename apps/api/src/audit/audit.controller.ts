import { Controller, Get, Query } from '@nestjs/common';
import { AuditQuerySchema } from '@tollgate/contracts';
import type { z } from 'zod';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { AuditRepository } from './audit.repository';

@Controller('v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditRepository) {}

  @Get()
  list(@Query(new ZodValidationPipe(AuditQuerySchema, 'query')) query: z.output<typeof AuditQuerySchema>) {
    return this.audit.page(query);
  }
}
