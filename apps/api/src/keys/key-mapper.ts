import type { ApiKey, Prisma } from '@prisma/client';
import type { Key, Limit } from '@tollgate/contracts';

/** A rotated-away key expires when its grace period ends, whichever comes first. */
export function effectiveExpiry(row: Pick<ApiKey, 'expiresAt' | 'graceEndsAt'>): Date | null {
  if (row.expiresAt && row.graceEndsAt) return row.expiresAt < row.graceEndsAt ? row.expiresAt : row.graceEndsAt;
  return row.expiresAt ?? row.graceEndsAt ?? null;
}

/** Keys not on the old side of a finished rotation at `now` (that one verifies EXPIRED for good). */
export function graceNotEnded(now: Date): Prisma.ApiKeyWhereInput {
  return { OR: [{ graceEndsAt: null }, { graceEndsAt: { gt: now } }] };
}

/** What keys are read with: when each was last used lives in ApiKeyActivity (see the schema). */
export const KEY_INCLUDE = { activity: { select: { lastUsedAt: true } } } as const;

/** An ApiKey row with its activity (absent on a key created just now: never used). */
export type KeyRow = ApiKey & { activity?: { lastUsedAt: Date } | null };

export function toKey(row: KeyRow): Key {
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
    lastUsedAt: row.activity?.lastUsedAt.toISOString() ?? null,
  };
}
