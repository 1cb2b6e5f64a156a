// The limits every guard benchmark server applies: a burst and a sustained limit (plus, for
// Tollgate, a monthly quota), all far above what a benchmark can send, so nothing is ever refused
// and every request pays for a full decision.
export const BENCH_LIMITS = [
  { name: 'burst', algorithm: 'token_bucket' as const, limit: 1_000_000_000, windowMs: 1_000, burst: 1_000_000_000 },
  { name: 'sustained', algorithm: 'sliding_window' as const, limit: 1_000_000_000, windowMs: 3_600_000 },
];

export const BENCH_QUOTA = { limit: 1_000_000_000, period: 'month' as const };
