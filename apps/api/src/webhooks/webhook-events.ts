import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import type { Webhook as WebhookRow } from '@prisma/client';
import type { WebhookEvent } from '@tollgate/contracts';
import type { VerificationResult } from '@tollgate/nest-guard';
import { WebhooksRepository } from './webhooks.repository';

const SUBSCRIPTION_REFRESH_MS = 30_000;
const MEMO_LIMIT = 50_000;

/**
 * Turns decisions into webhook events. It runs beside the hot path, so it decides from memory:
 * the subscriptions are cached (refreshed every 30 s and on webhook changes) and each event it
 * has already queued is remembered, so a key sitting at 100 % of its quota costs no query per
 * request. The database's unique (webhook, dedupeKey) makes the event once-only across instances.
 */
@Injectable()
export class WebhookEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('WebhookEvents');
  private subscriptions: WebhookRow[] = [];
  private readonly queued = new Set<string>();
  private refreshTimer?: NodeJS.Timeout;

  constructor(private readonly repository: WebhooksRepository) {}

  async onModuleInit(): Promise<void> {
    await this.refresh();
    this.refreshTimer = setInterval(() => void this.refresh(), SUBSCRIPTION_REFRESH_MS);
    this.refreshTimer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.refreshTimer);
  }

  async refresh(): Promise<void> {
    try {
      this.subscriptions = await this.repository.subscriptions();
    } catch (error) {
      this.logger.warn(`could not load webhook subscriptions: ${(error as Error).message}`);
    }
  }

  /** Called by the verifier with every decision (see VerifyModule). */
  readonly onDecision = (result: VerificationResult): void => {
    if (!result.keyId || !this.subscriptions.length) return;
    if (result.quota) this.quotaThresholds(result.keyId, result.ownerId ?? null, result.quota, result.nowMs);
  };

  /** The quota's used share crossed one of a webhook's thresholds: once per threshold per period. */
  private quotaThresholds(keyId: string, ownerId: string | null, quota: { limit: number; remaining: number; resetAt: number }, nowMs: number): void {
    const usedPercent = ((quota.limit - quota.remaining) / quota.limit) * 100;
    const crossed = new Map<number, string[]>();
    for (const webhook of this.subscriptions) {
      if (!webhook.events.includes('quota.threshold')) continue;
      for (const threshold of webhook.thresholds) {
        if (usedPercent >= threshold) crossed.set(threshold, [...(crossed.get(threshold) ?? []), webhook.id]);
      }
    }
    for (const [threshold, webhookIds] of crossed) {
      const dedupeKey = `quota.threshold:${keyId}:${quota.resetAt}:${threshold}`;
      this.queue(webhookIds, 'quota.threshold', dedupeKey, {
        keyId,
        ownerId,
        threshold,
        used: quota.limit - quota.remaining,
        limit: quota.limit,
        periodEndsAt: new Date(quota.resetAt).toISOString(),
        at: new Date(nowMs).toISOString(),
      });
    }
  }

  /** Queues an event for every subscriber of it (all of them unless `webhookIds` is given). */
  emit(event: WebhookEvent, dedupeKey: string, payload: unknown, webhookIds?: string[]): void {
    const ids = webhookIds ?? this.subscriptions.filter((webhook) => webhook.events.includes(event)).map((webhook) => webhook.id);
    this.queue(ids, event, dedupeKey, payload);
  }

  private queue(webhookIds: string[], event: WebhookEvent, dedupeKey: string, payload: unknown): void {
    if (!webhookIds.length || this.queued.has(dedupeKey)) return;
    if (this.queued.size >= MEMO_LIMIT) this.queued.clear();
    this.queued.add(dedupeKey);
    this.repository.enqueue(webhookIds, event, dedupeKey, payload).catch((error: unknown) => {
      // Forget it so the next decision tries again.
      this.queued.delete(dedupeKey);
      this.logger.warn(`could not queue ${event}: ${(error as Error).message}`);
    });
  }
}
