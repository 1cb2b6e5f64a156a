import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { civilFromDays, daysFromCivil, quotaPeriod } from './quota-period';

describe('quotaPeriod', () => {
  it('civil date arithmetic agrees with Date.UTC', () => {
    fc.assert(
      fc.property(fc.integer({ min: -50_000, max: 200_000 }), (days) => {
        const d = new Date(days * 86_400_000);
        expect(civilFromDays(days)).toEqual([d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()]);
        expect(daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())).toBe(days);
      }),
    );
  });

  it('a day period is the UTC day', () => {
    expect(quotaPeriod(Date.UTC(2026, 1, 28, 23, 59, 59, 999), 'day')).toEqual({ startMs: Date.UTC(2026, 1, 28), endMs: Date.UTC(2026, 2, 1) });
  });

  it('a month period starts on resetDay at 00:00 UTC, across year ends and leap Februaries', () => {
    expect(quotaPeriod(Date.UTC(2026, 0, 15), 'month')).toEqual({ startMs: Date.UTC(2026, 0, 1), endMs: Date.UTC(2026, 1, 1) });
    expect(quotaPeriod(Date.UTC(2026, 0, 14, 23, 59, 59, 999), 'month', 15)).toEqual({ startMs: Date.UTC(2025, 11, 15), endMs: Date.UTC(2026, 0, 15) });
    expect(quotaPeriod(Date.UTC(2026, 0, 15), 'month', 15)).toEqual({ startMs: Date.UTC(2026, 0, 15), endMs: Date.UTC(2026, 1, 15) });
    expect(quotaPeriod(Date.UTC(2026, 11, 31, 12), 'month', 28)).toEqual({ startMs: Date.UTC(2026, 11, 28), endMs: Date.UTC(2027, 0, 28) });
    expect(quotaPeriod(Date.UTC(2028, 1, 29, 12), 'month')).toEqual({ startMs: Date.UTC(2028, 1, 1), endMs: Date.UTC(2028, 2, 1) });
  });

  it('every instant lies in [start, end) of its month period for any resetDay', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.integer({ min: 1, max: 28 }), (now, resetDay) => {
        const { startMs, endMs } = quotaPeriod(now, 'month', resetDay);
        expect(now).toBeGreaterThanOrEqual(startMs);
        expect(now).toBeLessThan(endMs);
        expect(new Date(startMs).getUTCDate()).toBe(resetDay);
        expect(new Date(endMs).getUTCDate()).toBe(resetDay);
        expect(endMs - startMs).toBeGreaterThanOrEqual(28 * 86_400_000);
        expect(endMs - startMs).toBeLessThanOrEqual(31 * 86_400_000);
      }),
    );
  });
});
