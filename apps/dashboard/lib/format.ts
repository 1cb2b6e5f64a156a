/** Display formatting shared by pages. Locale is fixed so server and client render the same text. */

export const LOCALE = 'en-US';
const numberFormat = new Intl.NumberFormat(LOCALE);
const dateTimeFormat = new Intl.DateTimeFormat(LOCALE, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export function formatNumber(value: number): string {
  return numberFormat.format(value);
}

export function formatPercent(part: number, whole: number): string {
  if (!whole) return '0 %';
  const share = (part / whole) * 100;
  return `${share < 10 && share > 0 ? share.toFixed(1) : Math.round(share)} %`;
}

/** UTC, so a server-rendered date does not change on hydration. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${dateTimeFormat.format(date)} UTC`;
}

const UNITS: [number, string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'min'],
  [1000, 's'],
];

/** 60000 -> "1 min", 1500 -> "1.5 s", 250 -> "250 ms". */
export function formatDuration(ms: number): string {
  for (const [size, unit] of UNITS) {
    if (ms >= size) {
      const value = ms / size;
      return `${Number.isInteger(value) ? value : value.toFixed(1)} ${unit}`;
    }
  }
  return `${ms} ms`;
}

export function formatAlgorithm(algorithm: string): string {
  return algorithm.replace(/_/g, ' ');
}
