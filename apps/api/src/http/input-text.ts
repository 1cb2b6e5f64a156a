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

/**
 * Where a JSON text holds a key that could rewrite an object's prototype once the body is copied
 * (`__proto__`, or `constructor` holding `prototype`), the keys Fastify's parser refuses: the path
 * of the first such key, or null when there is none (or the text is not JSON at all). JSON.parse
 * itself is safe here: it defines `__proto__` as a plain own key. Iterative, like unstorableInput.
 */
export function prototypeKeyPath(text: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const stack: { value: unknown; path: string[] }[] = [{ value: parsed, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: [...path, String(i)] }));
      continue;
    }
    for (const [key, item] of Object.entries(value)) {
      if (key === '__proto__') return pathText('', [...path, key]);
      if (key === 'constructor' && item !== null && typeof item === 'object' && Object.hasOwn(item, 'prototype')) return pathText('', [...path, key, 'prototype']);
      stack.push({ value: item, path: [...path, key] });
    }
  }
  return null;
}

/** Why a JSON text does not parse, as JSON.parse words it (with the position), or null if it does. */
export function jsonSyntaxError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
