import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import type { AuditEntry } from '@tollgate/contracts';
import type { AuditContext } from '../auth/actor';
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
    const items = rows.slice(0, filter.limit).map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: row.actor,
      action: row.action,
      targetType: row.targetType,
      targetId: row.targetId,
      before: row.before ?? null,
      after: row.after ?? null,
    }));
    const last = rows.length > filter.limit ? rows[filter.limit - 1] : undefined;
    return { items, nextCursor: last ? encodeCursor(last.at, last.id) : null };
  }
}
