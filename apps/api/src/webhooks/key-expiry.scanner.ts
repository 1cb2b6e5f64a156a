import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';
import { DAY_MS } from '../usage/usage-range';
import { WebhookEvents } from './webhook-events';
import { WebhooksRepository } from './webhooks.repository';

/**
 * Raises `key.expiring` 7 days and 1 day before a key expires: each notice once (keyed by the
 * expiry itself, so moving the expiry notifies again). The expiry is the effective one, as the API
 * reports it: the end of a rotation's grace period when that comes first. A key that is found with
 * less than a day left gets only the 1-day notice.
 *
 * Scans run once at start-up (after every module is initialised, so the webhook subscriptions are
 * loaded) and then WEBHOOK_SCAN_MS after the previous one ended: they never overlap, and a scan
 * asked for during one (`scan()`) runs after it.
 */
@Injectable()
export class KeyExpiryScanner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('KeyExpiryScanner');
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** The scan in flight (or the last one); each new scan is chained after it. */
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly events: WebhookEvents,
    @Inject(ENV) private readonly env: Env,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async onModuleDestroy(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.last;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.scan().finally(() => this.schedule(this.env.WEBHOOK_SCAN_MS));
    }, delayMs);
    this.timer.unref();
  }

  /** One scan, after any scan in flight; `now` (default: the time it starts) is for tests. Never rejects. */
  scan(now?: number): Promise<void> {
    this.last = this.last.then(() => this.scanOnce(now ?? Date.now()));
    return this.last;
  }

  private async scanOnce(now: number): Promise<void> {
    try {
      const soon = await this.repository.keysExpiringBetween(new Date(now), new Date(now + 7 * DAY_MS));
      for (const key of soon) {
        const left = key.expiresAt.getTime() - now;
        const notice = left <= DAY_MS ? '1d' : '7d';
        const expiresAt = key.expiresAt.toISOString();
        this.events.emit('key.expiring', `key.expiring:${key.id}:${expiresAt}:${notice}`, { keyId: key.id, name: key.name, ownerId: key.ownerId, expiresAt, notice });
      }
    } catch (error) {
      this.logger.warn(`expiry scan failed: ${(error as Error).message}`);
    }
  }
}
