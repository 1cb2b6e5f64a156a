import type { FieldError } from '@tollgate/contracts';

/** Deeper JSON than this is refused: no field of the API nests more than a few levels. */
export const MAX_INPUT_DEPTH = 32;

/** A NUL, or a UTF-16 surrogate without its pair: text Postgres cannot store (and no name needs). */
// eslint-disable-next-line no-control-regex
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * What in a parsed body or query Postgres would refuse or the validators would choke on, named by
 * path, before any schema sees it: strings (and object keys) with a NUL or a lone surrogate, and
 * nesting deeper than MAX_INPUT_DEPTH (a `meta` of 150 nested arrays fits in 4 KiB but overflows
 * Prisma's JSON recursion; 20 000 overflow the stack). Iterative, so no input can overflow it.
 * At most 10 errors.
 */
export function unstorableInput(input: unknown, root: string): FieldError[] {
  const errors: FieldError[] = [];
  const stack: { value: unknown; path: string[]; depth: number }[] = [{ value: input, path: [], depth: 0 }];
  while (stack.length > 0 && errors.length < 10) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (UNSTORABLE.test(value)) errors.push({ path: pathText(root, path), message: 'must not contain NUL characters or unpaired surrogates' });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_INPUT_DEPTH) {
      errors.push({ path: pathText(root, path), message: `nests deeper than ${MAX_INPUT_DEPTH} levels` });
      continue;
    }
    const entries: [string, unknown][] = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
    for (const [key, item] of entries) {
      if (UNSTORABLE.test(key)) {
        errors.push({ path: pathText(root, path), message: 'has a key with NUL characters or unpaired surrogates' });
        continue;
      }
      stack.push({ value: item, path: [...path, key], depth: depth + 1 });
    }
  }
  return errors;
}

function pathText(root: string, path: readonly string[]): string {
  const rest = path.join('.');
  if (!root) return rest || '(body)';
  return rest ? `${root}.${rest}` : root;
}
