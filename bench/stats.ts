// Small statistics shared by the bench suites and probes.

/** The median of numbers (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The item whose `by` is the median (for an even count, the upper of the middle two): a whole run, not a mix of two. */
export function medianBy<T>(items: readonly T[], by: (item: T) => number): T {
  if (items.length === 0) throw new Error('median of no items');
  return [...items].sort((a, b) => by(a) - by(b))[Math.floor(items.length / 2)];
}
