import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import type { AuditEntry } from '@tollgate/contracts';
import { ADMIN_ACTOR, ROOT_KEY_ACTOR, type AuditContext } from '../auth/actor';
import { newId } from '../infra/ids';
import { PrismaService } from '../infra/prisma.service';
import { decodeCursor, encodeCursor } from '../http/cursor';

export interface AuditWrite {
  action: string;
  targetType: string;
  targetId: string;
  before?: unknown;
  after?: unknown;
}

/** Writes an audit row inside the caller's transaction, so a change and its record commit together. */
export async function writeAudit(tx: Prisma.TransactionClient, context: AuditContext, entry: AuditWrite): Promise<void> {
  await tx.auditLog.create({
    data: {
      id: newId('aud'),
      actor: context.actor,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      before: entry.before === undefined ? Prisma.DbNull : (entry.before as Prisma.InputJsonValue),
      after: entry.after === undefined ? Prisma.DbNull : (entry.after as Prisma.InputJsonValue),
      requestId: context.requestId,
    },
  });
}

@Injectable()
export class AuditRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Newest first; the cursor is the last row's (at, id). */
  async page(filter: { targetId?: string; cursor?: string; limit: number }): Promise<{ items: AuditEntry[]; nextCursor: string | null }> {
    const after = filter.cursor ? decodeCursor(filter.cursor, 'query.cursor') : undefined;
    const rows = await this.prisma.auditLog.findMany({
      where: {
        ...(filter.targetId ? { targetId: filter.targetId } : {}),
        ...(after ? { OR: [{ at: { lt: after.at } }, { at: after.at, id: { lt: after.id } }] } : {}),
      },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      take: filter.limit + 1,
    });
    const page = rows.slice(0, filter.limit);
    const names = await this.actorNames(page.map((row) => row.actor));
    const items = page.map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: row.actor,
      actorName: names.get(row.actor) ?? null,
      action: row.action,
      targetType: row.targetType,
      targetId: row.targetId,
      before: row.before ?? null,
      after: row.after ?? null,
    }));
    const last = rows.length > filter.limit ? rows[filter.limit - 1] : undefined;
    return { items, nextCursor: last ? encodeCursor(last.at, last.id) : null };
  }

  /** `admin:<id>` -> the user's email, `root_key:<id>` -> the key's name (two queries a page at most). */
  private async actorNames(actors: readonly string[]): Promise<Map<string, string>> {
    const idsOf = (prefix: string) => [...new Set(actors.filter((actor) => actor.startsWith(prefix)).map((actor) => actor.slice(prefix.length)))];
    const [userIds, rootKeyIds] = [idsOf(ADMIN_ACTOR), idsOf(ROOT_KEY_ACTOR)];
    const [users, rootKeys] = await Promise.all([
      userIds.length ? this.prisma.adminUser.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true } }) : [],
      rootKeyIds.length ? this.prisma.rootKey.findMany({ where: { id: { in: rootKeyIds } }, select: { id: true, name: true } }) : [],
    ]);
    return new Map([
      ...users.map((user) => [ADMIN_ACTOR + user.id, user.email] as const),
      ...rootKeys.map((key) => [ROOT_KEY_ACTOR + key.id, key.name] as const),
    ]);
  }
}
