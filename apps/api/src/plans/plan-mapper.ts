import type { Plan as PlanRow, PlanLimit as PlanLimitRow } from '@prisma/client';
import type { Limit, Plan } from '@tollgate/contracts';

export type PlanRowWithLimits = PlanRow & { limits: PlanLimitRow[]; _count?: { keys: number } };

export function toLimit(row: Pick<PlanLimitRow, 'name' | 'algorithm' | 'limit' | 'windowMs' | 'burst' | 'scope' | 'shaping'>): Limit {
  return {
    name: row.name,
    algorithm: row.algorithm,
    limit: row.limit,
    windowMs: Number(row.windowMs),
    ...(row.burst !== null ? { burst: row.burst } : {}),
    scope: row.scope,
    shaping: row.shaping,
  };
}

export function toPlan(row: PlanRowWithLimits): Plan {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    limits: [...row.limits].sort((a, b) => a.position - b.position).map(toLimit),
    quota: row.quotaLimit !== null && row.quotaPeriod ? { limit: Number(row.quotaLimit), period: row.quotaPeriod, resetDay: row.quotaResetDay ?? 1 } : null,
    failMode: row.failMode,
    keyCount: row._count?.keys ?? 0,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Prisma create-input for a plan's limits, keeping the admin's order. */
export function limitRows(limits: readonly Limit[]) {
  return limits.map((limit, position) => ({
    name: limit.name,
    algorithm: limit.algorithm,
    limit: limit.limit,
    windowMs: BigInt(limit.windowMs),
    burst: limit.burst ?? null,
    scope: limit.scope,
    shaping: limit.shaping ?? false,
    position,
  }));
}
