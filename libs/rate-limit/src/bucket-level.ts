/**
 * The step token_bucket and leaky_bucket share. Both hold their clock at the stored instant when
 * that is later than now (a clock that stepped back, or shaped requests queued until then), so
 * nothing flows twice; the content then moves by `rate` per elapsed ms (scaled by windowMs, so
 * integers): a token bucket fills toward `fillTo` (its capacity, > 0), cutting a content above a
 * lowered capacity down to it; a leaky bucket (`fillTo` 0) drains toward 0. The Redis script
 * inlines the same operations in the same order.
 */
export function heldClock(lastMs: number, nowMs: number): number {
  return lastMs > nowMs ? lastMs : nowMs;
}

export function bucketLevel(content: number, lastMs: number, t: number, rate: number, fillTo: number): number {
  const moved = (t - lastMs) * rate;
  if (fillTo > 0) return moved >= fillTo - content ? fillTo : content + moved;
  return moved >= content ? 0 : content - moved;
}
