import { USAGE_OUTCOMES, type UsageCounts } from '@tollgate/contracts';

/** The one place counts per outcome are created, added and totalled. */
export function emptyCounts(): UsageCounts {
  return { valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 };
}

/** `into += from`, per outcome; returns `into`. */
export function addCounts<T extends UsageCounts>(into: T, from: UsageCounts): T {
  for (const outcome of USAGE_OUTCOMES) into[outcome] += from[outcome];
  return into;
}

/** Every decision of one or more rows, whatever its outcome. */
export function totalOf(counts: UsageCounts | readonly UsageCounts[]): number {
  const rows: readonly UsageCounts[] = Array.isArray(counts) ? counts : [counts as UsageCounts];
  let total = 0;
  for (const row of rows) for (const outcome of USAGE_OUTCOMES) total += row[outcome];
  return total;
}
