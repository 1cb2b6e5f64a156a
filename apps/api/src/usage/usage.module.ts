import { Module } from '@nestjs/common';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';
import { RedisConnections } from '../infra/redis.provider';
import { WebhookEvents } from '../webhooks/webhook-events';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { UsageFlusher } from './usage-flusher';
import { UsageLiveFeed } from './usage-live';
import { UsageStore } from './usage-store';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/**
 * Usage metering: the flusher (Redis minute buckets -> Postgres rollups, every USAGE_FLUSH_MS,
 * started on module init and stopped, after its in-flight run, on shutdown) and the usage API.
 */
@Module({
  imports: [WebhooksModule],
  controllers: [UsageController],
  providers: [
    UsageRepository,
    UsageService,
    { provide: UsageStore, useFactory: (redis: RedisConnections) => new UsageStore(redis), inject: [RedisConnections] },
    { provide: UsageLiveFeed, useFactory: (store: UsageStore) => new UsageLiveFeed(store), inject: [UsageStore] },
    {
      provide: UsageFlusher,
      useFactory: (repository: UsageRepository, redis: RedisConnections, env: Env, events: WebhookEvents) =>
        new UsageFlusher(repository, redis, {
          intervalMs: env.USAGE_FLUSH_MS,
          // A flushed minute holds the exact number of rejections per key: at most one
          // ratelimit.exceeded per key per minute, aggregated, from whichever flusher commits it.
          onBucketCommitted: (minuteMs, rows) => {
            for (const row of rows) {
              if (row.keyId === '-' || row.rateLimited === 0) continue;
              events.emit('ratelimit.exceeded', `ratelimit.exceeded:${row.keyId}:${minuteMs}`, {
                keyId: row.keyId,
                minuteStart: new Date(minuteMs).toISOString(),
                rejected: row.rateLimited,
                admitted: row.valid,
              });
            }
          },
        }),
      inject: [UsageRepository, RedisConnections, ENV, WebhookEvents],
    },
  ],
  exports: [UsageFlusher, UsageRepository],
})
export class UsageModule {}
