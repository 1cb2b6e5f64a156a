import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';
import { WebhookEvents } from './webhook-events';
import { WebhooksRepository } from './webhooks.repository';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Raises `key.expiring` 7 days and 1 day before a key expires: each notice once (keyed by the
 * expiry itself, so moving the expiry notifies again). A key that is found with less than a day
 * left gets only the 1-day notice.
 */
@Injectable()
export class KeyExpiryScanner implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('KeyExpiryScanner');
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly events: WebhookEvents,
    @Inject(ENV) private readonly env: Env,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.scan(), this.env.WEBHOOK_SCAN_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  async scan(now = Date.now()): Promise<void> {
    try {
      const soon = await this.repository.keysExpiringBetween(new Date(now), new Date(now + 7 * DAY_MS));
      for (const key of soon) {
        const left = key.expiresAt.getTime() - now;
        const notice = left <= DAY_MS ? '1d' : '7d';
        this.events.emit('key.expiring', `key.expiring:${key.id}:${key.expiresAt.toISOString()}:${notice}`, {
          keyId: key.id,
          name: key.name,
          ownerId: key.ownerId,
          expiresAt: key.expiresAt.toISOString(),
          notice,
        });
      }
    } catch (error) {
      this.logger.warn(`expiry scan failed: ${(error as Error).message}`);
    }
  }
}
