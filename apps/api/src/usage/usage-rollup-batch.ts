import { addCounts } from './usage-counts';
import { DAY_MS, HOUR_MS } from './usage-range';
import type { BucketRow } from './usage-store';

/** One snapshot's counts, as the flusher read them from Redis. */
export interface SnapshotRows {
  id: string;
  minuteMs: number;
  rows: readonly BucketRow[];
}

/** Rollup rows in column form (one entry per row in every array), for one `unnest` write. */
export interface RollupChunk {
  keyId: string[];
  /** 1 = minute, 2 = hour, 3 = day: index + 1 in ROLLUP_GRANULARITIES. One number: every row's. */
  granularity: number[] | number;
  /** Bucket start (epoch ms) per row, or one for every row. */
  startMs: number[] | number;
  valid: number[];
  rateLimited: number[];
  quotaExceeded: number[];
  invalid: number[];
}

/** The granularity codes of RollupChunk.granularity, in order (code = index + 1). */
export const ROLLUP_GRANULARITIES = ['minute', 'hour', 'day'] as const;

/** Flat rows: [startMs, valid, rateLimited, quotaExceeded, invalid] repeated, starts ascending. */
const STRIDE = 5;

/**
 * The minute rows of one minute in key order (its parts, if several, summed per key), cut into
 * chunks of at most `rowsPerChunk` rows, which follow each other in key order.
 */
export function minuteChunks(minuteMs: number, parts: readonly (readonly BucketRow[])[], rowsPerChunk: number): RollupChunk[] {
  // One part (the usual case) has one row per key already (parseBucket); several are merged.
  const rows = parts.length === 1 ? [...parts[0]] : mergeParts(parts);
  rows.sort(byKeyId);
  const chunks: RollupChunk[] = [];
  for (let start = 0; start < rows.length; start += rowsPerChunk) {
    // One granularity and start for all: two arrays fewer to encode, send and parse.
    const chunk: RollupChunk = { keyId: [], granularity: 1, startMs: minuteMs, valid: [], rateLimited: [], quotaExceeded: [], invalid: [] };
    for (const row of rows.slice(start, start + rowsPerChunk)) {
      chunk.keyId.push(row.keyId);
      chunk.valid.push(row.valid);
      chunk.rateLimited.push(row.rateLimited);
      chunk.quotaExceeded.push(row.quotaExceeded);
      chunk.invalid.push(row.invalid);
    }
    chunks.push(chunk);
  }
  return chunks;
}

function mergeParts(parts: readonly (readonly BucketRow[])[]): BucketRow[] {
  const byKey = new Map<string, BucketRow>();
  for (const part of parts) {
    for (const row of part) {
      const merged = byKey.get(row.keyId);
      if (!merged) byKey.set(row.keyId, { ...row });
      else addCounts(merged, row);
    }
  }
  return [...byKey.values()];
}

/** Plain code-unit order, the same in every flusher (no locale involved). */
function byKeyId(a: BucketRow, b: BucketRow): number {
  return a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0;
}

/**
 * The hour and day rows of the minutes added so far, summed per (keyId, granularity, bucketStart):
 * N minutes of one hour make one hour row per key. Minutes must be added in ascending order. Per
 * key it keeps running sums in flat number arrays rather than objects: a backlog run moves
 * hundreds of thousands of rows, and this is a large part of the flusher's CPU time in Node.
 */
export class HourDayRollup {
  private readonly byKey = new Map<string, { hours: number[]; days: number[] }>();

  add(minuteMs: number, rows: readonly BucketRow[]): void {
    const hour = Math.floor(minuteMs / HOUR_MS) * HOUR_MS;
    const day = Math.floor(minuteMs / DAY_MS) * DAY_MS;
    for (const row of rows) {
      let sums = this.byKey.get(row.keyId);
      if (!sums) this.byKey.set(row.keyId, (sums = { hours: [], days: [] }));
      addTo(sums.hours, hour, row);
      addTo(sums.days, day, row);
    }
  }

  /**
   * The rows in (granularity, bucketStart, keyId) order: the hour rows, then the day rows, each
   * group by start, then key (the lock order of UsageRepository.flushBuckets). Rows of one index
   * position follow each other, so Postgres inserts them into the same index pages (in psql ~20 %
   * cheaper than alternating hour and day rows key by key).
   */
  chunks(rowsPerChunk: number): RollupChunk[] {
    const keys = [...this.byKey.keys()].sort();
    const chunks: RollupChunk[] = [];
    let chunk = emptyChunk();
    for (const granularity of [2, 3]) {
      const sumsOf = keys.map((keyId) => (granularity === 2 ? this.byKey.get(keyId)!.hours : this.byKey.get(keyId)!.days));
      const starts = new Set<number>();
      for (const sums of sumsOf) for (let i = 0; i < sums.length; i += STRIDE) starts.add(sums[i]);
      // Each key's sums ascend by start, like `starts`: one cursor per key walks them once.
      const cursor = new Array<number>(keys.length).fill(0);
      for (const start of [...starts].sort((a, b) => a - b)) {
        for (let k = 0; k < keys.length; k++) {
          const sums = sumsOf[k];
          const i = cursor[k];
          if (i >= sums.length || sums[i] !== start) continue;
          cursor[k] = i + STRIDE;
          if (chunk.keyId.length >= rowsPerChunk) {
            chunks.push(chunk);
            chunk = emptyChunk();
          }
          pushRow(chunk, keys[k], granularity, sums, i);
        }
      }
    }
    if (chunk.keyId.length) chunks.push(chunk);
    return chunks;
  }
}

/** Adds a row to the sums: onto the last one if it has the same start, else as a new one. */
function addTo(sums: number[], startMs: number, row: BucketRow): void {
  const last = sums.length - STRIDE;
  if (last >= 0 && sums[last] === startMs) {
    sums[last + 1] += row.valid;
    sums[last + 2] += row.rateLimited;
    sums[last + 3] += row.quotaExceeded;
    sums[last + 4] += row.invalid;
  } else {
    sums.push(startMs, row.valid, row.rateLimited, row.quotaExceeded, row.invalid);
  }
}

function pushRow(chunk: RowsChunk, keyId: string, granularity: number, sums: readonly number[], i: number): void {
  chunk.keyId.push(keyId);
  chunk.granularity.push(granularity);
  chunk.startMs.push(sums[i]);
  chunk.valid.push(sums[i + 1]);
  chunk.rateLimited.push(sums[i + 2]);
  chunk.quotaExceeded.push(sums[i + 3]);
  chunk.invalid.push(sums[i + 4]);
}

/** A chunk with a granularity and a start per row. */
type RowsChunk = RollupChunk & { granularity: number[]; startMs: number[] };

function emptyChunk(): RowsChunk {
  return { keyId: [], granularity: [], startMs: [], valid: [], rateLimited: [], quotaExceeded: [], invalid: [] };
}

/**
 * A Postgres array literal (`{...}`) of the given elements, sent as ONE text parameter and cast in
 * SQL (`::bigint[]`, `::text[]`): the driver would otherwise escape every element of every array
 * in JavaScript, which costs about as much as the rows' parsing and grouping. Strings are always
 * double-quoted with `"` and `\` escaped, so any text is safe.
 */
export function arrayLiteral(values: readonly number[] | readonly string[]): string {
  if (!values.length) return '{}';
  if (typeof values[0] === 'number') {
    // Checked without building each one's text (join does that once): a backlog flush sends
    // hundreds of thousands of numbers, and a string each is garbage the flusher pays for.
    for (const value of values as readonly number[]) if (!Number.isSafeInteger(value)) integerText(value);
    return `{${values.join(',')}}`;
  }
  const strings = values as readonly string[];
  // Key ids never hold `"` or `\`, so the usual case is one join, without a string per element.
  if (!strings.some((value) => /["\\]/.test(value))) return `{"${strings.join('","')}"}`;
  return `{${strings.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

/** An integer as SQL text (a parameter cast in SQL); anything else is refused rather than sent. */
export function integerText(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${String(value)}`);
  return String(value);
}
