import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import { effectiveLimits, type Key, type KeyStatus, type Limit } from '@tollgate/contracts';
import type { AuditContext } from '../auth/actor';
import { writeAudit } from '../audit/audit.repository';
import { ApiError } from '../http/api-error';
import { decodeCursor, encodeCursor } from '../http/cursor';
import { newId } from '../infra/ids';
import { PrismaService } from '../infra/prisma.service';
import { toLimit } from '../plans/plan-mapper';
import { effectiveExpiry, graceNotEnded, KEY_INCLUDE, toKey } from './key-mapper';

export interface NewKey {
  hash: string;
  start: string;
  prefix: string;
  name: string;
  planId: string;
  ownerId?: string | null;
  expiresAt?: Date | null;
  meta?: Record<string, unknown> | null;
  limits: Limit[];
}

export interface KeyChange {
  name?: string;
  enabled?: boolean;
  expiresAt?: Date | null;
  meta?: Record<string, unknown> | null;
  planId?: string;
  ownerId?: string | null;
  limits?: Limit[];
}

export interface KeyFilter {
  planId?: string;
  ownerId?: string;
  q?: string;
  enabled?: boolean;
  status?: KeyStatus;
  cursor?: string;
  limit: number;
}

/** The keys of a status at `now`; a key's expiry is its expiresAt or its rotation's grace end (effectiveExpiry). */
function statusWhere(status: KeyFilter['status'], now: Date): Prisma.ApiKeyWhereInput[] {
  if (!status) return [];
  const expired: Prisma.ApiKeyWhereInput = { OR: [{ expiresAt: { lte: now } }, { graceEndsAt: { lte: now } }] };
  if (status === 'expired') return [expired];
  const live: Prisma.ApiKeyWhereInput[] = [{ OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }, graceNotEnded(now)];
  return [{ enabled: status === 'enabled' }, ...live];
}

/** What verification needs about a key, read in one query: the key, its plan, the merged limits. */
export interface KeyForVerification {
  id: string;
  /** Whose per-key counters it uses: the first key of its rotation line (see KeyRecord.counterId). */
  counterId: string;
  ownerId: string | null;
  planId: string;
  enabled: boolean;
  expiresAt: number | null;
  limits: Limit[];
  quota: { limit: number; period: 'day' | 'month'; resetDay: number } | null;
  failMode: 'closed' | 'open' | 'local';
}

const json = (value: unknown) => (value === null || value === undefined ? Prisma.DbNull : (value as Prisma.InputJsonValue));

function planMissing(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003';
}

const PLAN_NOT_FOUND = () => new ApiError(404, 'NOT_FOUND', 'Plan not found.', [{ path: 'planId', message: 'no plan with this id' }]);

@Injectable()
export class KeysRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(data: NewKey, audit: AuditContext): Promise<Key> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const row = await tx.apiKey.create({
          data: {
            id: newId('key'),
            hash: data.hash,
            start: data.start,
            prefix: data.prefix,
            name: data.name,
            planId: data.planId,
            ownerId: data.ownerId ?? null,
            expiresAt: data.expiresAt ?? null,
            meta: json(data.meta),
            limits: data.limits as Prisma.InputJsonValue,
          },
        });
        const key = toKey(row);
        await writeAudit(tx, audit, { action: 'key.create', targetType: 'key', targetId: key.id, after: key });
        return key;
      });
    } catch (error) {
      if (planMissing(error)) throw PLAN_NOT_FOUND();
      throw error;
    }
  }

  /** Newest first, keyset-paginated on (createdAt, id) so deep pages stay fast on 100 k keys. */
  async page(filter: KeyFilter): Promise<{ items: Key[]; nextCursor: string | null }> {
    const after = filter.cursor ? decodeCursor(filter.cursor, 'query.cursor') : undefined;
    const where: Prisma.ApiKeyWhereInput = {
      deletedAt: null,
      ...(filter.planId ? { planId: filter.planId } : {}),
      ...(filter.ownerId ? { ownerId: filter.ownerId } : {}),
      ...(filter.enabled !== undefined ? { enabled: filter.enabled } : {}),
      ...(filter.q ? { OR: [{ name: { contains: likeLiteral(filter.q), mode: 'insensitive' } }, { start: { startsWith: likeLiteral(filter.q) } }, { id: filter.q }, { ownerId: filter.q }] } : {}),
      AND: [
        ...statusWhere(filter.status, new Date()),
        ...(after ? [{ OR: [{ createdAt: { lt: after.at } }, { createdAt: after.at, id: { lt: after.id } }] }] : []),
      ],
    };
    const rows = await this.prisma.apiKey.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: filter.limit + 1, include: KEY_INCLUDE });
    const last = rows.length > filter.limit ? rows[filter.limit - 1] : undefined;
    return { items: rows.slice(0, filter.limit).map(toKey), nextCursor: last ? encodeCursor(last.createdAt, last.id) : null };
  }

  async find(id: string): Promise<Key | null> {
    const row = await this.prisma.apiKey.findFirst({ where: { id, deletedAt: null }, include: KEY_INCLUDE });
    return row ? toKey(row) : null;
  }

  async update(id: string, change: KeyChange, audit: AuditContext): Promise<Key> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const before = await tx.apiKey.findFirst({ where: { id, deletedAt: null }, include: KEY_INCLUDE });
        if (!before) throw ApiError.notFound('Key');
        refuseExpiryPastGrace(before, change.expiresAt);
        const row = await tx.apiKey.update({
          where: { id },
          data: {
            ...(change.name !== undefined ? { name: change.name } : {}),
            ...(change.enabled !== undefined ? { enabled: change.enabled } : {}),
            ...(change.expiresAt !== undefined ? { expiresAt: change.expiresAt } : {}),
            ...(change.meta !== undefined ? { meta: json(change.meta) } : {}),
            ...(change.planId !== undefined ? { planId: change.planId } : {}),
            ...(change.ownerId !== undefined ? { ownerId: change.ownerId } : {}),
            ...(change.limits !== undefined ? { limits: change.limits as Prisma.InputJsonValue } : {}),
            version: { increment: 1 },
          },
          include: KEY_INCLUDE,
        });
        const after = toKey(row);
        await writeAudit(tx, audit, { action: 'key.update', targetType: 'key', targetId: id, before: toKey(before), after });
        return after;
      });
    } catch (error) {
      if (planMissing(error)) throw PLAN_NOT_FOUND();
      throw error;
    }
  }

  /**
   * Issues a successor key with the same settings; the old secret keeps verifying until
   * `graceEndsAt`, then verifies EXPIRED. A key can be rotated once: rotate its successor next.
   */
  async rotate<S extends { hash: string; start: string }>(id: string, issue: (prefix: string) => S, graceEndsAt: Date, audit: AuditContext): Promise<{ key: Key; secret: S }> {
    return this.prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "ApiKey" WHERE id = ${id} AND "deletedAt" IS NULL FOR UPDATE`;
      if (!locked.length) throw ApiError.notFound('Key');
      const old = await tx.apiKey.findUniqueOrThrow({ where: { id }, include: { rotatedTo: { select: { id: true } }, ...KEY_INCLUDE } });
      if (old.rotatedTo) throw ApiError.conflict(`This key was already rotated; rotate its successor ${old.rotatedTo.id} instead.`);
      // The successor keeps the prefix the key was issued with.
      const secret = issue(old.prefix);
      const row = await tx.apiKey.create({
        data: {
          id: newId('key'),
          hash: secret.hash,
          start: secret.start,
          prefix: old.prefix,
          name: old.name,
          planId: old.planId,
          ownerId: old.ownerId,
          enabled: old.enabled,
          expiresAt: old.expiresAt,
          meta: json(old.meta),
          limits: old.limits as Prisma.InputJsonValue,
          rotatedFromId: old.id,
          // The successor counts on its predecessor's limits and quota: rotating resets nothing.
          counterId: old.counterId ?? old.id,
        },
      });
      const updatedOld = await tx.apiKey.update({ where: { id }, data: { graceEndsAt, version: { increment: 1 } }, include: KEY_INCLUDE });
      const key = toKey(row);
      await writeAudit(tx, audit, { action: 'key.rotate', targetType: 'key', targetId: id, before: toKey(old), after: { ...toKey(updatedOld), successorId: key.id } });
      await writeAudit(tx, audit, { action: 'key.create', targetType: 'key', targetId: key.id, after: { ...key, rotatedFromId: id } });
      return { key, secret };
    });
  }

  /** Soft delete: the secret verifies NOT_FOUND, while usage and audit history stay readable. */
  async revoke(id: string, audit: AuditContext): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const before = await tx.apiKey.findFirst({ where: { id, deletedAt: null }, include: KEY_INCLUDE });
      if (!before) throw ApiError.notFound('Key');
      await tx.apiKey.update({ where: { id }, data: { deletedAt: new Date(), version: { increment: 1 } } });
      await writeAudit(tx, audit, { action: 'key.revoke', targetType: 'key', targetId: id, before: toKey(before) });
    });
  }

  async findForVerification(hash: string): Promise<KeyForVerification | null> {
    return this.findRecord({ hash });
  }

  /** The same record by key id (an admin's view of a key), null for a revoked or unknown key. */
  async findForVerificationById(id: string): Promise<KeyForVerification | null> {
    return this.findRecord({ id });
  }

  private async findRecord(where: Prisma.ApiKeyWhereUniqueInput): Promise<KeyForVerification | null> {
    const row = await this.prisma.apiKey.findUnique({ where, include: { plan: { include: { limits: true } } } });
    if (!row || row.deletedAt || !row.plan) return null;
    const plan = row.plan;
    const planLimits = [...plan.limits].sort((a, b) => a.position - b.position).map(toLimit);
    return {
      id: row.id,
      counterId: row.counterId ?? row.id,
      ownerId: row.ownerId,
      planId: plan.id,
      enabled: row.enabled,
      expiresAt: effectiveExpiry(row)?.getTime() ?? null,
      limits: effectiveLimits(planLimits, (row.limits as Limit[] | null) ?? []),
      quota: plan.quotaLimit !== null && plan.quotaPeriod ? { limit: Number(plan.quotaLimit), period: plan.quotaPeriod, resetDay: plan.quotaResetDay ?? 1 } : null,
      failMode: plan.failMode,
    };
  }
}

/**
 * Search text as a LIKE literal: Prisma's contains/startsWith pass `%` and `_` through as
 * wildcards (`q=%` listed every key), so they and the escape character itself are escaped.
 */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/**
 * The old key of a rotation stops verifying when its grace period ends, whatever its expiresAt
 * (effectiveExpiry): a later or no expiry would be accepted and change nothing, so it is refused.
 * An earlier one ends the grace early, which is what such a PATCH is for.
 */
function refuseExpiryPastGrace(key: { graceEndsAt: Date | null }, expiresAt: Date | null | undefined): void {
  if (expiresAt === undefined || !key.graceEndsAt) return;
  if (expiresAt !== null && expiresAt <= key.graceEndsAt) return;
  const graceEnds = key.graceEndsAt.toISOString();
  throw ApiError.conflict(`This key was rotated: it stops verifying when its grace period ends at ${graceEnds}. Its expiry can only be brought forward.`, [
    { path: 'expiresAt', message: `must not be later than ${graceEnds}, when the rotation's grace period ends` },
  ]);
}
