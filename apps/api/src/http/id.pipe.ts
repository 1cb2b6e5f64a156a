import { PipeTransform } from '@nestjs/common';
import { ApiError } from './api-error';

const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** A path id that cannot be one of ours is simply not found: 404, never a database error. */
export class IdPipe implements PipeTransform<string, string> {
  constructor(private readonly what: string) {}

  transform(value: string): string {
    if (!ID_PATTERN.test(value)) throw ApiError.notFound(this.what);
    return value;
  }
}
