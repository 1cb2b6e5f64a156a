import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import type { Limit, Plan } from '@tollgate/contracts';
import type { AuditContext } from '../auth/actor';
import { writeAudit } from '../audit/audit.repository';
import { ApiError } from '../http/api-error';
import { newId } from '../infra/ids';
import { PrismaService } from '../infra/prisma.service';
import { graceNotEnded, KEY_INCLUDE, toKey } from '../keys/key-mapper';
import { limitRows, toPlan } from './plan-mapper';

export interface PlanData {
  name: string;
  description?: string | null;
  limits: Limit[];
  quota: { limit: number; period: 'day' | 'month'; resetDay?: number } | null;
  failMode: 'closed' | 'open' | 'local';
}

/**
 * The keys that hold a plan: not revoked, and not the old side of a rotation whose grace period has
 * ended. That one verifies EXPIRED for good (no PATCH revives it), so it neither counts as a key of
 * the plan nor keeps the plan from being deleted.
 */
function holdingKeys(now: Date): Prisma.ApiKeyWhereInput {
  return { deletedAt: null, ...graceNotEnded(now) };
}

function withLimits(now = new Date()) {
  return {
    limits: true,
    _count: { select: { keys: { where: holdingKeys(now) } } },
  } satisfies Prisma.PlanInclude;
}

function quotaColumns(quota: PlanData['quota']) {
  return quota
    ? { quotaLimit: BigInt(quota.limit), quotaPeriod: quota.period, quotaResetDay: quota.period === 'month' ? (quota.resetDay ?? 1) : null }
    : { quotaLimit: null, quotaPeriod: null, quotaResetDay: null };
}

function nameTaken(error: unknown): boolean {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002';
}

@Injectable()
export class PlansRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(data: PlanData, audit: AuditContext): Promise<Plan> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const row = await tx.plan.create({
          data: {
            id: newId('plan'),
            name: data.name,
            description: data.description ?? null,
            failMode: data.failMode,
            ...quotaColumns(data.quota),
            limits: { create: limitRows(data.limits).map((limit) => ({ id: newId('lim'), ...limit })) },
          },
          include: withLimits(),
        });
        const plan = toPlan(row);
        await writeAudit(tx, audit, { action: 'plan.create', targetType: 'plan', targetId: plan.id, after: plan });
        return plan;
      });
    } catch (error) {
      if (nameTaken(error)) throw ApiError.conflict(`A plan named "${data.name}" already exists.`, [{ path: 'name', message: 'must be unique' }]);
      throw error;
    }
  }

  async list(): Promise<Plan[]> {
    const rows = await this.prisma.plan.findMany({ include: withLimits(), orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    return rows.map(toPlan);
  }

  async find(id: string): Promise<Plan | null> {
    const row = await this.prisma.plan.findUnique({ where: { id }, include: withLimits() });
    return row ? toPlan(row) : null;
  }

  async exists(id: string): Promise<boolean> {
    return (await this.prisma.plan.count({ where: { id } })) > 0;
  }

  /** Applies a change, bumps the version and audits it, all in one transaction. */
  async update(id: string, change: Partial<PlanData>, audit: AuditContext): Promise<Plan> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const before = await tx.plan.findUnique({ where: { id }, include: withLimits() });
        if (!before) throw ApiError.notFound('Plan');
        if (change.limits) {
          await tx.planLimit.deleteMany({ where: { planId: id } });
          await tx.planLimit.createMany({ data: limitRows(change.limits).map((limit) => ({ id: newId('lim'), planId: id, ...limit })) });
        }
        const row = await tx.plan.update({
          where: { id },
          data: {
            ...(change.name !== undefined ? { name: change.name } : {}),
            ...(change.description !== undefined ? { description: change.description } : {}),
            ...(change.failMode !== undefined ? { failMode: change.failMode } : {}),
            ...(change.quota !== undefined ? quotaColumns(change.quota) : {}),
            version: { increment: 1 },
          },
          include: withLimits(),
        });
        const after = toPlan(row);
        await writeAudit(tx, audit, { action: 'plan.update', targetType: 'plan', targetId: id, before: toPlan(before), after });
        return after;
      });
    } catch (error) {
      if (nameTaken(error)) throw ApiError.conflict(`A plan named "${change.name}" already exists.`, [{ path: 'name', message: 'must be unique' }]);
      throw error;
    }
  }

  /**
   * Deletes a plan no key holds (holdingKeys); 409 otherwise, naming how many do. The old keys of
   * finished rotations still on the plan are revoked with it, each with its own audit entry, so no
   * key is ever left on a plan that no longer exists.
   */
  async delete(id: string, audit: AuditContext): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      // Lock the plan row so a key cannot be attached to it between the count and the delete.
      const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM "Plan" WHERE id = ${id} FOR UPDATE`;
      if (!locked.length) throw ApiError.notFound('Plan');
      const now = new Date();
      const before = await tx.plan.findUniqueOrThrow({ where: { id }, include: withLimits(now) });
      const inUse = before._count.keys;
      if (inUse > 0) throw ApiError.conflict(`The plan is used by ${inUse} key${inUse === 1 ? '' : 's'}; move or revoke them first.`);
      const retired = await tx.apiKey.findMany({ where: { planId: id, deletedAt: null }, include: KEY_INCLUDE });
      if (retired.length) {
        await tx.apiKey.updateMany({ where: { id: { in: retired.map((key) => key.id) } }, data: { deletedAt: now, version: { increment: 1 } } });
        for (const key of retired) {
          await writeAudit(tx, audit, { action: 'key.revoke', targetType: 'key', targetId: key.id, before: toKey(key), after: { reason: `plan ${id} deleted; the key was rotated away and its grace period had ended` } });
        }
      }
      await tx.plan.delete({ where: { id } });
      await writeAudit(tx, audit, { action: 'plan.delete', targetType: 'plan', targetId: id, before: toPlan(before) });
    });
  }
}
