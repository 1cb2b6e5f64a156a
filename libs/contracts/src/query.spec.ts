import { describe, expect, it } from 'vitest';
import { ListKeysQuerySchema } from './keys';
import { queryInt } from './query';

describe('queryInt', () => {
  const limit = queryInt(1, 100, 20);

  it('reads plain decimal digits, and the default when absent', () => {
    expect(limit.parse('16')).toBe(16);
    expect(limit.parse('007')).toBe(7);
    expect(limit.parse(undefined)).toBe(20);
  });

  it('refuses what Number() would quietly accept: hex, exponents, blanks, signs, fractions', () => {
    for (const text of ['0x10', '1e1', ' 16', '16 ', '', '+5', '-1', '2.0', '١٢']) {
      const result = limit.safeParse(text);
      expect(result.success, text).toBe(false);
    }
  });

  it('keeps the bounds, and names the field in a query schema', () => {
    expect(limit.safeParse('0').success).toBe(false);
    expect(limit.safeParse('101').success).toBe(false);
    expect(limit.safeParse('99999999999').success).toBe(false);
    const result = ListKeysQuerySchema.safeParse({ limit: '0x10' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['limit']);
    expect(result.error?.issues[0]?.message).toMatch(/decimal digits/);
  });
});
