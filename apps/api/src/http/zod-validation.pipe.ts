import { PipeTransform } from '@nestjs/common';
import { fieldErrors, type FieldError } from '@tollgate/contracts';
import type { z } from 'zod';
import { ApiError } from './api-error';
import { unstorableInput } from './input-text';

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
    // Before the schema: text Postgres cannot store and nesting the validators cannot walk would
    // otherwise surface as a 500 from the database or a stack overflow.
    const unstorable = unstorableInput(input, this.where === 'query' ? 'query' : '');
    if (unstorable.length) throw this.invalid(unstorable);
    // `?limit=1&limit=2` arrives as an array, which every query schema would call the wrong type.
    if (this.where === 'query' && input && typeof input === 'object') {
      const repeated = Object.entries(input).filter(([, given]) => Array.isArray(given));
      if (repeated.length) throw this.invalid(repeated.map(([name]) => ({ path: `query.${name}`, message: 'must be given once' })));
    }
    const result = this.schema.safeParse(input);
    if (!result.success) {
      throw this.invalid(fieldErrors(result.error).map((error) => ({ ...error, path: this.where === 'query' ? `query.${error.path}` : error.path })));
    }
    return result.data;
  }

  private invalid(errors: FieldError[]): ApiError {
    return ApiError.validation(errors, `Invalid ${this.where}: ${errors.map((error) => `${error.path} ${error.message}`).join('; ')}`);
  }
}
