import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DAY_MS, HOUR_MS } from './usage-range';
import { arrayLiteral, HourDayRollup, minuteChunks, ROLLUP_GRANULARITIES, type RollupChunk } from './usage-rollup-batch';
import type { BucketRow } from './usage-store';

const T = Date.UTC(2026, 5, 15, 23, 58);
const MINUTE = 60_000;

function row(keyId: string, valid: number, rateLimited = 0, quotaExceeded = 0, invalid = 0): BucketRow {
  return { keyId, valid, rateLimited, quotaExceeded, invalid };
}

/** Chunks back to one object per row, in order: [keyId, granularity, startMs, valid, rateLimited, quotaExceeded, invalid]. */
function rowsOf(chunks: readonly RollupChunk[]): [string, string, number, number, number, number, number][] {
  return chunks.flatMap((c) =>
    c.keyId.map((keyId, i) => {
      const granularity = typeof c.granularity === 'number' ? c.granularity : c.granularity[i];
      const startMs = typeof c.startMs === 'number' ? c.startMs : c.startMs[i];
      return [keyId, ROLLUP_GRANULARITIES[granularity - 1], startMs, c.valid[i], c.rateLimited[i], c.quotaExceeded[i], c.invalid[i]] as [string, string, number, number, number, number, number];
    }),
  );
}

describe('minuteChunks', () => {
  it('writes one row per key in code-unit order, parts of the minute summed per key', () => {
    const parts = [[row('key_b', 2), row('key_a', 1, 1)], [row('key_b', 3, 0, 1), row('-', 0, 0, 0, 4)]];
    expect(rowsOf(minuteChunks(T, parts, 100))).toEqual([
      ['-', 'minute', T, 0, 0, 0, 4],
      ['key_a', 'minute', T, 1, 1, 0, 0],
      ['key_b', 'minute', T, 5, 0, 1, 0],
    ]);
    expect(parts[0][0]).toEqual(row('key_b', 2)); // the snapshot's rows are not modified
  });

  it('cuts chunks of at most the given size that follow each other in key order', () => {
    const rows = Array.from({ length: 7 }, (_, i) => row(`key_${6 - i}`, 1));
    const chunks = minuteChunks(T, [rows], 3);
    expect(chunks.map((c) => c.keyId)).toEqual([['key_0', 'key_1', 'key_2'], ['key_3', 'key_4', 'key_5'], ['key_6']]);
    expect(minuteChunks(T, [], 3)).toEqual([]);
  });
});

describe('HourDayRollup', () => {
  it('sums minutes per hour and per day, in (granularity, start, key) order, across hour and day boundaries', () => {
    const rollup = new HourDayRollup();
    rollup.add(T, [row('key_b', 1), row('key_a', 2)]); // 23:58
    rollup.add(T + MINUTE, [row('key_b', 10, 1)]); // 23:59, same hour
    rollup.add(T + 2 * MINUTE, [row('key_b', 100)]); // 00:00 the next day
    const hour = Math.floor(T / HOUR_MS) * HOUR_MS;
    const day = Math.floor(T / DAY_MS) * DAY_MS;
    expect(rowsOf(rollup.chunks(100))).toEqual([
      ['key_a', 'hour', hour, 2, 0, 0, 0],
      ['key_b', 'hour', hour, 11, 1, 0, 0],
      ['key_b', 'hour', hour + HOUR_MS, 100, 0, 0, 0],
      ['key_a', 'day', day, 2, 0, 0, 0],
      ['key_b', 'day', day, 11, 1, 0, 0],
      ['key_b', 'day', day + DAY_MS, 100, 0, 0, 0],
    ]);
  });

  it('cuts chunks of at most the given size, in order', () => {
    const rollup = new HourDayRollup();
    rollup.add(T, [row('key_a', 1), row('key_b', 1), row('key_c', 1)]);
    expect(rollup.chunks(4).map((c) => c.keyId)).toEqual([['key_a', 'key_b', 'key_c', 'key_a'], ['key_b', 'key_c']]);
  });

  it('equals a plain per-(key, granularity, start) sum of any minutes, in lock order', () => {
    const keys = fc.constantFrom('key_a', 'key_b', 'key_c', '-', 'key_a1', 'Key_a');
    const bucketRow = fc.record({ keyId: keys, valid: fc.nat(5), rateLimited: fc.nat(5), quotaExceeded: fc.nat(5), invalid: fc.nat(5) });
    // Minutes over ~3 days, several parts per minute allowed.
    const minute = fc.record({ minuteMs: fc.integer({ min: 0, max: 4000 }).map((m) => T + m * MINUTE), rows: fc.array(bucketRow, { maxLength: 6 }) });
    fc.assert(
      fc.property(fc.array(minute, { maxLength: 12 }), fc.integer({ min: 1, max: 8 }), (minutes, size) => {
        const ordered = [...minutes].sort((a, b) => a.minuteMs - b.minuteMs);
        const rollup = new HourDayRollup();
        const expected = new Map<string, [string, string, number, number, number, number, number]>();
        for (const { minuteMs, rows } of ordered) {
          rollup.add(minuteMs, rows);
          for (const r of rows) {
            for (const [granularity, size] of [['hour', HOUR_MS], ['day', DAY_MS]] as const) {
              const start = Math.floor(minuteMs / size) * size;
              const id = `${r.keyId}|${granularity}|${start}`;
              const sum = expected.get(id) ?? [r.keyId, granularity, start, 0, 0, 0, 0];
              sum[3] += r.valid;
              sum[4] += r.rateLimited;
              sum[5] += r.quotaExceeded;
              sum[6] += r.invalid;
              expected.set(id, sum);
            }
          }
        }
        const order = { hour: 0, day: 1 } as Record<string, number>;
        const want = [...expected.values()].sort((a, b) => order[a[1]] - order[b[1]] || a[2] - b[2] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        expect(rowsOf(rollup.chunks(size))).toEqual(want);
      }),
    );
  });
});

describe('arrayLiteral', () => {
  it('writes integers bare and strings double-quoted with " and \\ escaped', () => {
    expect(arrayLiteral([1, 0, 1_799_999_999_999])).toBe('{1,0,1799999999999}');
    expect(arrayLiteral(['key_a', '-', 'NULL', 'a"b\\c', 'x,y}'])).toBe('{"key_a","-","NULL","a\\"b\\\\c","x,y}"}');
    expect(arrayLiteral([])).toBe('{}');
  });

  it('refuses what is not a safe integer rather than sending it', () => {
    expect(() => arrayLiteral([1, 1.5])).toThrow('not an integer');
    expect(() => arrayLiteral([Number.NaN])).toThrow('not an integer');
  });
});
