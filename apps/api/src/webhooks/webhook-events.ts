import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { WEBHOOK_EVENTS, type WebhookEvent } from '@tollgate/contracts';
import type { VerificationResult } from '@tollgate/nest-guard';
import { WebhooksRepository, type Subscription } from './webhooks.repository';

const SUBSCRIPTION_REFRESH_MS = 30_000;
/** Keys whose quota progress is remembered (oldest forgotten first); a forgotten key costs one idempotent insert when it is next seen above a threshold. */
const KEY_STATE_LIMIT = 50_000;
/** Dedupe keys of queued events remembered, so an event noticed again costs no insert. */
const QUEUED_LIMIT = 50_000;

/** One quota threshold and the webhooks that asked for it. */
interface ThresholdSubscribers {
  threshold: number;
  webhookIds: string[];
}

/** A key's progress through the thresholds in one quota period. */
interface KeyQuotaState {
  /** The period's end (the quota's resetAt): a different value is a new period, which re-arms every threshold. */
  resetAt: number;
  /** Index in `thresholds` of the lowest threshold not queued yet in this period (`thresholds.length` when all are). */
  next: number;
}

/** A Map that forgets its oldest entry past `limit` (insertion order): bounded memory, O(1) per operation. */
class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.limit) this.delete(this.keys().next().value as K);
    return super.set(key, value);
  }
}

/**
 * Turns decisions into webhook events. It runs beside the hot path (every verification), so it
 * decides from memory: on each subscription refresh the quota thresholds of every webhook are
 * compiled into one ascending list of (threshold, webhookIds), and each key keeps the index of its
 * next threshold in the current period. The steady state is one Map lookup and one comparison;
 * the dedupe key and payload are built only when a key crosses a new threshold. The database's
 * unique (webhook, dedupeKey) makes each event once-only across instances and restarts.
 *
 * `ratelimit.exceeded` is not raised here: the usage flusher queues it in the transaction that
 * commits the minute's counts (UsageRepository.flushBuckets).
 */
@Injectable()
export class WebhookEvents implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('WebhookEvents');
  /** Subscriber ids per event. */
  private subscribers = new Map<WebhookEvent, string[]>();
  /** quota.threshold subscriptions, ascending by threshold. */
  private thresholds: ThresholdSubscribers[] = [];
  private thresholdsSignature = '';
  private readonly keyStates = new BoundedMap<string, KeyQuotaState>(KEY_STATE_LIMIT);
  private readonly queued = new BoundedMap<string, true>(QUEUED_LIMIT);
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
      this.apply(await this.repository.subscriptions());
    } catch (error) {
      this.logger.warn(`could not load webhook subscriptions: ${(error as Error).message}`);
    }
  }

  /** Compiles the subscriptions into the lookup structures the hot path reads. */
  private apply(subscriptions: readonly Subscription[]): void {
    const subscribers = new Map<WebhookEvent, string[]>(WEBHOOK_EVENTS.map((event) => [event, []]));
    const byThreshold = new Map<number, string[]>();
    for (const subscription of subscriptions) {
      for (const event of subscription.events) subscribers.get(event as WebhookEvent)?.push(subscription.id);
      if (!subscription.events.includes('quota.threshold')) continue;
      for (const threshold of subscription.thresholds) {
        const ids = byThreshold.get(threshold);
        if (ids) ids.push(subscription.id);
        else byThreshold.set(threshold, [subscription.id]);
      }
    }
    const thresholds = [...byThreshold].map(([threshold, webhookIds]) => ({ threshold, webhookIds: webhookIds.sort() })).sort((a, b) => a.threshold - b.threshold);
    const signature = JSON.stringify(thresholds);
    // Key states index into the list: a changed list starts them afresh (the dedupe keys keep
    // already-queued events from going out twice; a new webhook gets the thresholds already passed).
    if (signature !== this.thresholdsSignature) this.keyStates.clear();
    this.thresholdsSignature = signature;
    this.thresholds = thresholds;
    this.subscribers = subscribers;
  }

  /** Called by the verifier with every decision (see VerifyModule). Must stay cheap. */
  readonly onDecision = (result: VerificationResult): void => {
    const quota = result.quota;
    if (quota === undefined || result.keyId === undefined || this.thresholds.length === 0) return;
    const state = this.keyStates.get(result.keyId);
    if (state !== undefined && state.resetAt === quota.resetAt) {
      const next = this.thresholds[state.next];
      // used / limit < next threshold %: nothing new (also true once every threshold is queued).
      if (next === undefined || (quota.limit - quota.remaining) * 100 < next.threshold * quota.limit) return;
      this.crossed(result, quota, state);
      return;
    }
    // First decision seen for this key, or a new period: every threshold is armed again.
    const fresh: KeyQuotaState = { resetAt: quota.resetAt, next: 0 };
    this.keyStates.set(result.keyId, fresh);
    this.crossed(result, quota, fresh);
  };

  /** Queues every threshold from `state.next` up to the used share, then moves `state.next` past them. */
  private crossed(result: VerificationResult, quota: { limit: number; remaining: number; resetAt: number }, state: KeyQuotaState): void {
    const keyId = result.keyId!;
    const used = quota.limit - quota.remaining;
    let next = state.next;
    while (next < this.thresholds.length && used * 100 >= this.thresholds[next].threshold * quota.limit) {
      const index = next;
      const { threshold, webhookIds } = this.thresholds[index];
      // The period end is part of the key: the same threshold in the next period is a new event.
      this.queue(webhookIds, 'quota.threshold', `quota.threshold:${keyId}:${quota.resetAt}:${threshold}`, {
        keyId,
        ownerId: result.ownerId ?? null,
        threshold,
        used,
        limit: quota.limit,
        periodEndsAt: new Date(quota.resetAt).toISOString(),
        at: new Date(result.nowMs).toISOString(),
      }, () => {
        // Not queued: re-arm this threshold for the key so a later decision tries again.
        const current = this.keyStates.get(keyId);
        if (current !== undefined && current.resetAt === quota.resetAt && current.next > index) current.next = index;
      });
      next++;
    }
    state.next = next;
  }

  /** Queues an event for every subscriber of it (all of them unless `webhookIds` is given). */
  emit(event: WebhookEvent, dedupeKey: string, payload: unknown, webhookIds?: string[]): void {
    this.queue(webhookIds ?? this.subscribers.get(event) ?? [], event, dedupeKey, payload);
  }

  private queue(webhookIds: readonly string[], event: WebhookEvent, dedupeKey: string, payload: unknown, onFailure?: () => void): void {
    if (!webhookIds.length || this.queued.has(dedupeKey)) return;
    this.queued.set(dedupeKey, true);
    this.repository.enqueue([...webhookIds], event, dedupeKey, payload).catch((error: unknown) => {
      // Forget it so the next decision (or scan) tries again.
      this.queued.delete(dedupeKey);
      onFailure?.();
      this.logger.warn(`could not queue ${event}: ${(error as Error).message}`);
    });
  }
}
