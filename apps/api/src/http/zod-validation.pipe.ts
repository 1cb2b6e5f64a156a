import { PipeTransform } from '@nestjs/common';
import { fieldErrors } from '@tollgate/contracts';
import type { z } from 'zod';
import { ApiError } from './api-error';

/**
 * Validates a body, query or param with a contract schema. Unknown fields, wrong types and
 * out-of-range numbers become a 400 problem naming each field; the handler gets parsed values.
 */
export class ZodValidationPipe<S extends z.ZodType> implements PipeTransform<unknown, z.output<S>> {
  constructor(
    private readonly schema: S,
    private readonly where: 'body' | 'query' = 'body',
  ) {}

  transform(value: unknown): z.output<S> {
    const input = this.where === 'body' && value === undefined ? {} : value;
    const result = this.schema.safeParse(input);
    if (!result.success) {
      const errors = fieldErrors(result.error).map((error) => ({ ...error, path: this.where === 'query' ? `query.${error.path}` : error.path }));
      throw ApiError.validation(errors, `Invalid ${this.where}: ${errors.map((error) => `${error.path} ${error.message}`).join('; ')}`);
    }
    return result.data;
  }
}
