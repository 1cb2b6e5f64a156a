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

  it('keeps the sender\'s origin when there is one, and accepts messages without it', () => {
    expect(parseInvalidation('{"kind":"key","id":"k1","origin":"v-1"}')).toEqual({ kind: 'key', id: 'k1', origin: 'v-1' });
    expect(parseInvalidation('{"kind":"all","origin":"v-1"}')).toEqual({ kind: 'all', origin: 'v-1' });
    expect(parseInvalidation('{"kind":"plan","id":"p1","origin":42}')).toEqual({ kind: 'plan', id: 'p1' });
  });

  it('uses <prefix>invalidate as the channel', () => {
    expect(invalidationChannel('tg:')).toBe('tg:invalidate');
  });
});
