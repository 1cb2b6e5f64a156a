import { Injectable } from '@nestjs/common';
import { Prisma, type Webhook as WebhookRow, type WebhookDelivery as DeliveryRow } from '@prisma/client';
import type { Webhook, WebhookDelivery, WebhookEvent } from '@tollgate/contracts';
import type { AuditContext } from '../auth/actor';
import { writeAudit } from '../audit/audit.repository';
import { ApiError } from '../http/api-error';
import { newId } from '../infra/ids';
import { PrismaService } from '../infra/prisma.service';
import { effectiveExpiry } from '../keys/key-mapper';

/** What the event side keeps of a subscription: never its signing secret (only the sender reads that). */
export interface Subscription {
  id: string;
  events: string[];
  thresholds: number[];
}

/** A key whose effective expiry (expiresAt, or the end of a rotation's grace if earlier) is near. */
export interface ExpiringKey {
  id: string;
  name: string;
  ownerId: string | null;
  expiresAt: Date;
}

/** One key's rejections in one minute, as the flusher commits them. */
export interface RateLimitedMinute {
  keyId: string;
  minuteMs: number;
  rejected: number;
  admitted: number;
}

const EXPIRING_PAGE = 1000;

/**
 * Queues `ratelimit.exceeded` for each (key, minute) with rejections, for every enabled webhook
 * subscribed to it, inside the caller's transaction (the usage flush that commits those counts).
 * Dedupe key `ratelimit.exceeded:<keyId>:<minuteMs>`: at most one delivery per key, minute and
 * webhook. A minute committed in several parts (a decision that arrived after its bucket was
 * claimed) adds to the same delivery while it has not been attempted yet (pending, 0 attempts);
 * once its first attempt has started its payload is fixed, and later parts add nothing to the
 * event (they are in the usage rollups all the same). The webhook rows are share-locked so a
 * concurrent delete waits for this transaction instead of failing it.
 */
export async function queueRateLimitExceeded(tx: Prisma.TransactionClient, minutes: readonly RateLimitedMinute[]): Promise<number> {
  if (!minutes.length) return 0;
  const hooks = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM "Webhook" WHERE enabled AND 'ratelimit.exceeded' = ANY(events) ORDER BY id FOR KEY SHARE`;
  if (!hooks.length) return 0;
  const sorted = [...minutes].sort((a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : a.minuteMs - b.minuteMs));
  const ids: string[] = [];
  const webhookIds: string[] = [];
  const dedupeKeys: string[] = [];
  const payloads: string[] = [];
  for (const minute of sorted) {
    const payload = JSON.stringify({ keyId: minute.keyId, minuteStart: new Date(minute.minuteMs).toISOString(), rejected: minute.rejected, admitted: minute.admitted });
    for (const hook of hooks) {
      ids.push(newId('whd'));
      webhookIds.push(hook.id);
      dedupeKeys.push(`ratelimit.exceeded:${minute.keyId}:${minute.minuteMs}`);
      payloads.push(payload);
    }
  }
  return tx.$executeRaw`
    INSERT INTO "WebhookDelivery" (id, "webhookId", event, "dedupeKey", payload, "createdAt", "nextAttemptAt")
    SELECT i.id, i."webhookId", 'ratelimit.exceeded', i."dedupeKey", i.payload, now() AT TIME ZONE 'UTC', now() AT TIME ZONE 'UTC'
    FROM unnest(${ids}::text[], ${webhookIds}::text[], ${dedupeKeys}::text[], ${payloads}::jsonb[]) AS i(id, "webhookId", "dedupeKey", payload)
    ON CONFLICT ("webhookId", "dedupeKey") DO UPDATE SET payload = "WebhookDelivery".payload || jsonb_build_object(
      'rejected', ("WebhookDelivery".payload->>'rejected')::bigint + (EXCLUDED.payload->>'rejected')::bigint,
      'admitted', ("WebhookDelivery".payload->>'admitted')::bigint + (EXCLUDED.payload->>'admitted')::bigint)
    WHERE "WebhookDelivery".status = 'pending' AND "WebhookDelivery".attempts = 0`;
}

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

  /** Every enabled subscription, without its secret: the event side's view. */
  async subscriptions(): Promise<Subscription[]> {
    return this.prisma.webhook.findMany({ where: { enabled: true }, select: { id: true, events: true, thresholds: true } });
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

  /**
   * Keys whose effective expiry (key-mapper's effectiveExpiry: the earlier of expiresAt and a
   * rotation's graceEndsAt, what the API reports and the verifier enforces) falls in (from, to],
   * ordered by that expiry, then id. Every match, read in pages of 1000 by id: no silent cap.
   */
  async keysExpiringBetween(from: Date, to: Date): Promise<ExpiringKey[]> {
    const found: ExpiringKey[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.prisma.apiKey.findMany({
        where: {
          deletedAt: null,
          enabled: true,
          OR: [{ expiresAt: { gt: from, lte: to } }, { graceEndsAt: { gt: from, lte: to } }],
          ...(after === undefined ? {} : { id: { gt: after } }),
        },
        select: { id: true, name: true, ownerId: true, expiresAt: true, graceEndsAt: true },
        orderBy: { id: 'asc' },
        take: EXPIRING_PAGE,
      });
      for (const row of page) {
        const expiresAt = effectiveExpiry(row);
        // One column in range does not make the other one later: the earlier one decides.
        if (expiresAt && expiresAt > from && expiresAt <= to) found.push({ id: row.id, name: row.name, ownerId: row.ownerId, expiresAt });
      }
      if (page.length < EXPIRING_PAGE) break;
      after = page[page.length - 1].id;
    }
    return found.sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
