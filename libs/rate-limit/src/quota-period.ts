import type { QuotaPeriod } from './types';

const DAY_MS = 86_400_000;

/**
 * Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). Only
 * floor-divisions of small integers, so the Lua copy in the Redis script is exact too.
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The inverse of daysFromCivil: [year, month 1..12, day 1..31]. */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return [month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day];
}

/** The UTC calendar period containing nowMs: a day, or a month starting on `resetDay` at 00:00. */
export function quotaPeriod(nowMs: number, period: QuotaPeriod, resetDay = 1): { startMs: number; endMs: number } {
  const days = Math.floor(nowMs / DAY_MS);
  if (period === 'day') return { startMs: days * DAY_MS, endMs: (days + 1) * DAY_MS };
  const [year, month, day] = civilFromDays(days);
  let startYear = year;
  let startMonth = month;
  if (day < resetDay) {
    startMonth = month - 1;
    if (startMonth === 0) {
      startMonth = 12;
      startYear = year - 1;
    }
  }
  const endYear = startMonth === 12 ? startYear + 1 : startYear;
  const endMonth = startMonth === 12 ? 1 : startMonth + 1;
  return {
    startMs: daysFromCivil(startYear, startMonth, resetDay) * DAY_MS,
    endMs: daysFromCivil(endYear, endMonth, resetDay) * DAY_MS,
  };
}
