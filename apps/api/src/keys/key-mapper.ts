import type { ApiKey } from '@prisma/client';
import type { Key, Limit } from '@tollgate/contracts';

/** A rotated-away key expires when its grace period ends, whichever comes first. */
export function effectiveExpiry(row: Pick<ApiKey, 'expiresAt' | 'graceEndsAt'>): Date | null {
  if (row.expiresAt && row.graceEndsAt) return row.expiresAt < row.graceEndsAt ? row.expiresAt : row.graceEndsAt;
  return row.expiresAt ?? row.graceEndsAt ?? null;
}

export function toKey(row: ApiKey): Key {
  return {
    id: row.id,
    start: row.start,
    name: row.name,
    planId: row.planId ?? '',
    ownerId: row.ownerId,
    enabled: row.enabled,
    expiresAt: effectiveExpiry(row)?.toISOString() ?? null,
    meta: (row.meta as Record<string, unknown> | null) ?? null,
    limits: (row.limits as Limit[] | null) ?? [],
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}
