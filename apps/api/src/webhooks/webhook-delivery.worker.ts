import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';
import { DAY_MS, HOUR_MS } from '../usage/usage-range';
import { signPayload, SIGNATURE_HEADER } from './webhook-signature';
import { WebhooksRepository, type ClaimedDelivery } from './webhooks.repository';

const RETRY_WINDOW_MS = DAY_MS;
const MAX_BACKOFF_MS = HOUR_MS;
const SEND_TIMEOUT_MS = 10_000;
const LEASE_MS = 60_000;
const BATCH = 20;

/** Exponential backoff with ±20 % jitter, so failing endpoints are not hit in lockstep. */
export function nextRetryDelay(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const delay = Math.min(baseMs * 2 ** Math.max(0, attempt - 1), MAX_BACKOFF_MS);
  return Math.round(delay * (0.8 + 0.4 * random()));
}

/**
 * Sends due deliveries: signed (`Tollgate-Signature`), retried with exponential backoff for 24 h,
 * each attempt's status recorded. Any number of API instances may run it (claims skip locked rows).
 */
@Injectable()
export class WebhookDeliveryWorker implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('WebhookDelivery');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private started = false;

  constructor(
    private readonly repository: WebhooksRepository,
    @Inject(ENV) private readonly env: Env,
  ) {}

  onModuleInit(): void {
    this.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** Starts polling every WEBHOOK_POLL_MS (again, after `stop`). Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule();
  }

  /** Stops polling and waits for the round in flight; `tick()` still sends by hand (tests). */
  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (!this.started) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.tick().then(
        () => undefined,
        () => undefined,
      ).finally(() => this.schedule());
    }, this.env.WEBHOOK_POLL_MS);
    this.timer.unref();
  }

  /** One round: claim what is due and send it. Exposed for tests. */
  async tick(): Promise<number> {
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.repository.claimDue(BATCH, LEASE_MS);
    } catch (error) {
      this.logger.warn(`could not claim deliveries: ${(error as Error).message}`);
      return 0;
    }
    await Promise.all(claimed.map((delivery) => this.send(delivery)));
    return claimed.length;
  }

  private async send(delivery: ClaimedDelivery): Promise<void> {
    const body = JSON.stringify({ id: delivery.id, type: delivery.event, createdAt: delivery.createdAt.toISOString(), data: delivery.payload });
    let failure: { statusCode: number | null; error: string };
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'Tollgate-Webhooks/1',
          'tollgate-event': delivery.event,
          'tollgate-delivery': delivery.id,
          [SIGNATURE_HEADER]: signPayload(delivery.secret, body, Math.floor(Date.now() / 1000)),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      await response.body?.cancel();
      if (response.status >= 200 && response.status < 300) {
        await this.repository.markSucceeded(delivery.id, response.status);
        return;
      }
      failure = { statusCode: response.status, error: `HTTP ${response.status}` };
    } catch (error) {
      failure = { statusCode: null, error: (error as Error).message };
    }
    const giveUp = Date.now() - delivery.createdAt.getTime() >= RETRY_WINDOW_MS;
    const next = giveUp ? null : new Date(Date.now() + nextRetryDelay(delivery.attempts, this.env.WEBHOOK_RETRY_BASE_MS));
    await this.repository.markFailedAttempt(delivery.id, failure, next).catch((error: unknown) => this.logger.warn(`could not record attempt: ${(error as Error).message}`));
  }
}
