import { Injectable } from '@nestjs/common';
import { Prisma, type Webhook as WebhookRow, type WebhookDelivery as DeliveryRow } from '@prisma/client';
import type { Webhook, WebhookDelivery, WebhookEvent } from '@tollgate/contracts';
import type { AuditContext } from '../auth/actor';
import { writeAudit } from '../audit/audit.repository';
import { ApiError } from '../http/api-error';
import { newId } from '../infra/ids';
import { PrismaService } from '../infra/prisma.service';

export function toWebhook(row: WebhookRow): Webhook {
  return { id: row.id, url: row.url, events: row.events as WebhookEvent[], thresholds: row.thresholds, enabled: row.enabled, createdAt: row.createdAt.toISOString() };
}

export function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    webhookId: row.webhookId,
    event: row.event as WebhookEvent,
    status: row.status,
    attempts: row.attempts,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    payload: row.payload,
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    deliveredAt: row.deliveredAt?.toISOString() ?? null,
  };
}

/** A delivery claimed for sending, with what is needed to sign and send it. */
export interface ClaimedDelivery {
  id: string;
  event: string;
  payload: unknown;
  attempts: number;
  createdAt: Date;
  url: string;
  secret: string;
}

@Injectable()
export class WebhooksRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(data: { url: string; events: string[]; thresholds: number[]; secret: string }, audit: AuditContext): Promise<Webhook> {
    return this.prisma.$transaction(async (tx) => {
      const row = await tx.webhook.create({ data: { id: newId('wh'), ...data } });
      const webhook = toWebhook(row);
      await writeAudit(tx, audit, { action: 'webhook.create', targetType: 'webhook', targetId: row.id, after: webhook });
      return webhook;
    });
  }

  async list(): Promise<Webhook[]> {
    return (await this.prisma.webhook.findMany({ orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] })).map(toWebhook);
  }

  /** Every enabled subscription, with its secret: the event side's view. */
  async subscriptions(): Promise<WebhookRow[]> {
    return this.prisma.webhook.findMany({ where: { enabled: true } });
  }

  async find(id: string): Promise<Webhook | null> {
    const row = await this.prisma.webhook.findUnique({ where: { id } });
    return row ? toWebhook(row) : null;
  }

  async delete(id: string, audit: AuditContext): Promise<void> {
    await this.prisma.$transaction(async (tx) => {
      const row = await tx.webhook.findUnique({ where: { id } });
      if (!row) throw ApiError.notFound('Webhook');
      await tx.webhook.delete({ where: { id } });
      await writeAudit(tx, audit, { action: 'webhook.delete', targetType: 'webhook', targetId: id, before: toWebhook(row) });
    });
  }

  async deliveries(webhookId: string, limit: number): Promise<WebhookDelivery[]> {
    const rows = await this.prisma.webhookDelivery.findMany({ where: { webhookId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit });
    return rows.map(toDelivery);
  }

  /**
   * Queues one delivery per webhook; the (webhookId, dedupeKey) unique constraint makes an event
   * that several instances notice (or one notices twice) go out once.
   */
  async enqueue(webhookIds: string[], event: string, dedupeKey: string, payload: unknown): Promise<number> {
    if (!webhookIds.length) return 0;
    const result = await this.prisma.webhookDelivery.createMany({
      data: webhookIds.map((webhookId) => ({ id: newId('whd'), webhookId, event, dedupeKey, payload: payload as Prisma.InputJsonValue })),
      skipDuplicates: true,
    });
    return result.count;
  }

  /**
   * Claims due deliveries (SKIP LOCKED, so several instances share the work without sending one
   * twice) and leases them for a minute: a sender that dies mid-send leaves them to be retried.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    return this.prisma.$queryRaw<ClaimedDelivery[]>`
      UPDATE "WebhookDelivery" AS d
         SET "nextAttemptAt" = now() + make_interval(secs => ${leaseMs / 1000}), attempts = d.attempts + 1
        FROM "Webhook" AS w
       WHERE d.id IN (
               SELECT id FROM "WebhookDelivery"
                WHERE status = 'pending' AND "nextAttemptAt" <= now()
                ORDER BY "nextAttemptAt"
                LIMIT ${limit}
                FOR UPDATE SKIP LOCKED)
         AND w.id = d."webhookId"
      RETURNING d.id, d.event, d.payload, d.attempts, d."createdAt", w.url, w.secret`;
  }

  async markSucceeded(id: string, statusCode: number): Promise<void> {
    await this.prisma.webhookDelivery.update({ where: { id }, data: { status: 'succeeded', lastStatusCode: statusCode, lastError: null, deliveredAt: new Date() } });
  }

  async markFailedAttempt(id: string, failure: { statusCode: number | null; error: string }, nextAttemptAt: Date | null): Promise<void> {
    await this.prisma.webhookDelivery.update({
      where: { id },
      data: {
        lastStatusCode: failure.statusCode,
        lastError: failure.error.slice(0, 500),
        ...(nextAttemptAt ? { nextAttemptAt } : { status: 'failed' }),
      },
    });
  }

  /** Keys whose expiry falls in (from, to], for key.expiring. */
  async keysExpiringBetween(from: Date, to: Date): Promise<{ id: string; name: string; ownerId: string | null; expiresAt: Date }[]> {
    const rows = await this.prisma.apiKey.findMany({
      where: { deletedAt: null, enabled: true, expiresAt: { gt: from, lte: to } },
      select: { id: true, name: true, ownerId: true, expiresAt: true },
      take: 10_000,
    });
    return rows.map((row) => ({ ...row, expiresAt: row.expiresAt! }));
  }
}
