import { describe, expect, it } from 'vitest';
import { invalidationChannel, parseInvalidation } from './invalidation';

describe('invalidation messages', () => {
  it('parses the three kinds and rejects anything else', () => {
    expect(parseInvalidation('{"kind":"key","id":"k1"}')).toEqual({ kind: 'key', id: 'k1' });
    expect(parseInvalidation('{"kind":"plan","id":"p1"}')).toEqual({ kind: 'plan', id: 'p1' });
    expect(parseInvalidation('{"kind":"all"}')).toEqual({ kind: 'all' });
    for (const raw of ['', 'null', '{"kind":"key"}', '{"kind":"key","id":""}', '{"kind":"nope"}', '[1]', '{']) {
      expect(parseInvalidation(raw)).toBeUndefined();
    }
  });

  it('uses <prefix>invalidate as the channel', () => {
    expect(invalidationChannel('tg:')).toBe('tg:invalidate');
  });
});
