import { describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env';
import { ApiError } from '../http/api-error';
import { autoGranularity, DAY_MS, resolveRange, retentionFromEnv, TOP_RULES } from './usage-range';
import { parseBucket } from './usage-store';

const NOW = Date.UTC(2026, 5, 15, 12, 30, 20);

function fieldsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return (error.errors ?? []).map((e) => e.path);
    throw error;
  }
  return [];
}

describe('resolveRange', () => {
  it('defaults to the last 24 h in hour buckets, from the floored start to the bucket holding `to`', () => {
    const range = resolveRange({}, NOW);
    expect(range.granularity).toBe('hour');
    expect(range.startMs).toBe(Date.UTC(2026, 5, 14, 12));
    expect(range.endMs).toBe(Date.UTC(2026, 5, 15, 13));
    expect(range.points).toBe(25);
  });

  it('refuses an explicit granularity for a range older than its rows are kept, not answering zeros', () => {
    const minuteAgo = (days: number) => new Date(NOW - days * DAY_MS);
    expect(fieldsOf(() => resolveRange({ from: minuteAgo(8), to: minuteAgo(7.9), granularity: 'minute' }, NOW))).toEqual(['query.granularity']);
    expect(fieldsOf(() => resolveRange({ from: minuteAgo(91), to: minuteAgo(90.5), granularity: 'hour' }, NOW))).toEqual(['query.granularity']);
    // Within retention, at its edge, or by the day (kept forever): answered.
    expect(resolveRange({ from: minuteAgo(6.9), to: minuteAgo(6.8), granularity: 'minute' }, NOW).granularity).toBe('minute');
    expect(resolveRange({ from: minuteAgo(7), to: minuteAgo(6.99), granularity: 'minute' }, NOW).granularity).toBe('minute');
    expect(resolveRange({ from: minuteAgo(400), to: minuteAgo(399), granularity: 'day' }, NOW).granularity).toBe('day');
    // Without a granularity the choice goes coarser by itself.
    expect(resolveRange({ from: minuteAgo(8), to: minuteAgo(7.9) }, NOW).granularity).not.toBe('minute');
  });

  it('refuses a range longer than the granularity allows, naming the field', () => {
    const from = new Date(NOW - 2 * 86_400_000);
    expect(fieldsOf(() => resolveRange({ from, granularity: 'minute' }, NOW))).toEqual(['query.granularity']);
    expect(fieldsOf(() => resolveRange({ from: new Date(NOW - 86_400_000 - 1), granularity: 'minute' }, NOW))).toEqual(['query.granularity']);
    // The default range, 24 h before a `to` that is not on a minute edge, touches 1441 minutes.
    expect(resolveRange({ granularity: 'minute' }, NOW).points).toBe(1441);
    expect(resolveRange({ from: new Date(NOW - 86_400_000 + 60_000), granularity: 'minute' }, NOW).points).toBe(1440);
    expect(resolveRange({ from: new Date(NOW - 60 * 86_400_000), granularity: 'hour' }, NOW).points).toBe(1441);
    expect(fieldsOf(() => resolveRange({ from: new Date(NOW - 60 * 86_400_000 - 1), granularity: 'hour' }, NOW))).toEqual(['query.granularity']);
    expect(fieldsOf(() => resolveRange({ from: new Date(Date.UTC(2020, 0, 1)) }, NOW))).toEqual(['query.from']);
    expect(fieldsOf(() => resolveRange({ to: new Date(NOW - 100 * 86_400_000 * 365) }, NOW))).toEqual([]);
  });

  it('picks minute for short recent ranges, hour up to 14 days, day beyond or past retention', () => {
    expect(autoGranularity(NOW - 3_600_000, NOW, NOW)).toBe('minute');
    expect(autoGranularity(NOW - 7 * 86_400_000, NOW, NOW)).toBe('hour');
    expect(autoGranularity(NOW - 30 * 86_400_000, NOW, NOW)).toBe('day');
    expect(autoGranularity(NOW - 200 * 86_400_000, NOW - 199 * 86_400_000, NOW)).toBe('day');
  });
});

describe('resolveRange with the top rules and a configured retention', () => {
  it('top: minute rows up to 2 days, hour up to 60, day up to 731 day buckets (400 on query.from past it)', () => {
    expect(resolveRange({ from: new Date(NOW - 2 * DAY_MS) }, NOW, undefined, TOP_RULES).granularity).toBe('minute');
    expect(resolveRange({ from: new Date(NOW - 30 * DAY_MS) }, NOW, undefined, TOP_RULES).granularity).toBe('hour');
    expect(resolveRange({ from: new Date(Date.UTC(2024, 5, 15)), to: new Date(Date.UTC(2026, 5, 15)) }, NOW, undefined, TOP_RULES).points).toBe(730);
    expect(fieldsOf(() => resolveRange({ from: new Date(Date.UTC(2023, 0, 1)) }, NOW, undefined, TOP_RULES))).toEqual(['query.from']);
  });

  it('USAGE_RETENTION_MINUTE_DAYS (default 7, 1..90) and USAGE_RETENTION_HOUR_DAYS (default 90, 1..3650, >= minute) are parsed from the env', () => {
    expect(retentionFromEnv(parseEnv({}))).toEqual({ minuteMs: 7 * DAY_MS, hourMs: 90 * DAY_MS, flushMarkerMs: 3 * DAY_MS });
    expect(retentionFromEnv(parseEnv({ USAGE_RETENTION_MINUTE_DAYS: '2', USAGE_RETENTION_HOUR_DAYS: '30' }))).toMatchObject({ minuteMs: 2 * DAY_MS, hourMs: 30 * DAY_MS });
    expect(() => parseEnv({ USAGE_RETENTION_MINUTE_DAYS: '0' })).toThrow(/USAGE_RETENTION_MINUTE_DAYS/);
    expect(() => parseEnv({ USAGE_RETENTION_HOUR_DAYS: '4000' })).toThrow(/USAGE_RETENTION_HOUR_DAYS/);
    expect(() => parseEnv({ USAGE_RETENTION_MINUTE_DAYS: '30', USAGE_RETENTION_HOUR_DAYS: '10' })).toThrow(/USAGE_RETENTION_HOUR_DAYS: must be at least/);
  });

  it('USAGE_RETENTION_MINUTE_DAYS / _HOUR_DAYS decide which rows still exist for `from`', () => {
    const retention = retentionFromEnv({ USAGE_RETENTION_MINUTE_DAYS: 2, USAGE_RETENTION_HOUR_DAYS: 10 });
    const threeDaysAgo = NOW - 3 * DAY_MS;
    expect(autoGranularity(threeDaysAgo, threeDaysAgo + 3_600_000, NOW)).toBe('minute');
    expect(autoGranularity(threeDaysAgo, threeDaysAgo + 3_600_000, NOW, retention)).toBe('hour');
    expect(resolveRange({ from: new Date(NOW - 12 * DAY_MS), to: new Date(NOW - 11 * DAY_MS) }, NOW, retention).granularity).toBe('day');
  });
});

describe('parseBucket', () => {
  it('groups `<keyId>|<outcome>` fields per key and ignores anything else', () => {
    expect(parseBucket(['key_a|valid', '3', 'key_a|rateLimited', '2', '-|invalid', '1', 'junk', '5', 'key_b|other', '1']).sort((a, b) => a.keyId.localeCompare(b.keyId))).toEqual([
      { keyId: '-', valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 1 },
      { keyId: 'key_a', valid: 3, rateLimited: 2, quotaExceeded: 0, invalid: 0 },
    ]);
  });
});
