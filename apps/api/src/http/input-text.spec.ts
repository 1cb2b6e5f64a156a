import { describe, expect, it } from 'vitest';
import { MAX_INPUT_DEPTH, unstorableInput } from './input-text';

describe('unstorableInput', () => {
  it('names strings with a NUL or an unpaired surrogate, and keys with one', () => {
    expect(unstorableInput({ name: 'ok', meta: { a: ['fine', 'bad\u0000'] } }, '')).toEqual([{ path: 'meta.a.1', message: expect.stringMatching(/NUL/) }]);
    expect(unstorableInput({ ownerId: '\uD800' }, 'query')).toEqual([{ path: 'query.ownerId', message: expect.stringMatching(/surrogate/) }]);
    expect(unstorableInput({ x: 'a\uDC00b' }, '').map((e) => e.path)).toEqual(['x']);
    expect(unstorableInput({ meta: { 'k\u0000': 1 } }, '').map((e) => e.path)).toEqual(['meta']);
    expect(unstorableInput('\u0000', '')).toEqual([{ path: '(body)', message: expect.any(String) }]);
  });

  it('accepts paired surrogates (emoji), other control characters and plain values', () => {
    expect(unstorableInput({ name: 'rocket \uD83D\uDE80', tab: 'a\tb', n: 1, b: true, z: null, list: [1, 'two'] }, '')).toEqual([]);
  });

  it('refuses nesting deeper than MAX_INPUT_DEPTH without overflowing the stack, however deep', () => {
    const nest = (depth: number) => {
      let value: unknown = 'leaf';
      for (let i = 0; i < depth; i++) value = [value];
      return { meta: value };
    };
    expect(unstorableInput(nest(MAX_INPUT_DEPTH - 1), '')).toEqual([]);
    expect(unstorableInput(nest(MAX_INPUT_DEPTH), '')).toEqual([{ path: `meta${'.0'.repeat(MAX_INPUT_DEPTH - 1)}`, message: `nests deeper than ${MAX_INPUT_DEPTH} levels` }]);
    expect(unstorableInput(nest(100_000), '')).toHaveLength(1);
  });
});
