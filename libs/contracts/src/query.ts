import { z } from 'zod';

/**
 * A whole number in a query string, written in plain decimal digits. `z.coerce.number()` would
 * take what `Number()` takes: `0x10`, `1e1`, ` 16 ` and an empty string (as 0), so a typo could
 * silently become another page size.
 */
export function queryInt(min: number, max: number, defaultValue: number) {
  const schema = z
    .string()
    .regex(/^[0-9]{1,10}$/, { message: `must be a whole number from ${min} to ${max}, in decimal digits` })
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(defaultValue);
  QUERY_INT_DOCS.set(schema, { default: defaultValue, type: 'integer', minimum: min, maximum: max });
  return schema;
}

/**
 * What the OpenAPI document says of each queryInt: an integer with its bounds and default, as a
 * client sees it, rather than the string-and-pattern it is parsed from (see openapi.ts).
 */
export const QUERY_INT_DOCS = new WeakMap<object, { default: number; type: 'integer'; minimum: number; maximum: number }>();

/** The query of a list without filters: any field is unknown (a 400 naming it, not silently ignored). */
export const NoQuerySchema = z.strictObject({});
