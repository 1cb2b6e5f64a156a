import type { KeyRecord } from '@tollgate/nest-guard';
import type { CheckRequest } from '@tollgate/rate-limit';

// The limits every guard benchmark server applies: a burst and a sustained limit (plus, for
// Tollgate, a monthly quota), all far above what a benchmark can send, so nothing is ever refused
// and every request pays for a full decision.
export const BENCH_LIMITS = [
  { name: 'burst', algorithm: 'token_bucket' as const, limit: 1_000_000_000, windowMs: 1_000, burst: 1_000_000_000 },
  { name: 'sustained', algorithm: 'sliding_window' as const, limit: 1_000_000_000, windowMs: 3_600_000 },
];

export const BENCH_QUOTA = { limit: 1_000_000_000, period: 'month' as const };

/** The key every guarded benchmark and probe verifies: BENCH_LIMITS per key, BENCH_QUOTA monthly. */
export function benchKeyRecord(id: string, planId: string): KeyRecord {
  return {
    id,
    ownerId: null,
    planId,
    enabled: true,
    expiresAt: null,
    limits: BENCH_LIMITS.map((limit) => ({ ...limit, scope: 'key' as const })),
    quota: { ...BENCH_QUOTA, resetDay: 1 },
    failMode: 'closed',
  };
}

/** The store request the guard makes for benchKeyRecord(id): its two limits, quota and meter. */
export function benchCheckRequest(id: string): CheckRequest {
  return {
    limits: BENCH_LIMITS.map((limit) => ({ name: limit.name, identity: `key:${id}`, params: { ...limit } })),
    cost: 1,
    quota: { identity: `key:${id}`, ...BENCH_QUOTA, resetDay: 1 },
    meter: { keyPrefix: 'usage:', member: id },
  };
}
