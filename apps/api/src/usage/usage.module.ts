import { Module } from '@nestjs/common';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';
import { RedisConnections } from '../infra/redis.provider';
import { UsageFlusher } from './usage-flusher';
import { UsageLiveFeed } from './usage-live';
import { retentionFromEnv } from './usage-range';
import { UsageStore } from './usage-store';
import { UsageController } from './usage.controller';
import { UsageRepository } from './usage.repository';
import { UsageService } from './usage.service';

/**
 * Usage metering: the flusher (Redis minute buckets -> Postgres rollups, every USAGE_FLUSH_MS,
 * started on module init and stopped, after its in-flight run, on shutdown; it also queues
 * `ratelimit.exceeded` deliveries in the same transactions, see UsageRepository.flushBuckets) and
 * the usage API. Retention comes from USAGE_RETENTION_MINUTE_DAYS / USAGE_RETENTION_HOUR_DAYS.
 */
@Module({
  controllers: [UsageController],
  providers: [
    UsageRepository,
    UsageService,
    { provide: UsageStore, useFactory: (redis: RedisConnections) => new UsageStore(redis), inject: [RedisConnections] },
    { provide: UsageLiveFeed, useFactory: (store: UsageStore) => new UsageLiveFeed(store), inject: [UsageStore] },
    {
      provide: UsageFlusher,
      useFactory: (repository: UsageRepository, redis: RedisConnections, env: Env) =>
        new UsageFlusher(repository, redis, { intervalMs: env.USAGE_FLUSH_MS, retention: retentionFromEnv(env) }),
      inject: [UsageRepository, RedisConnections, ENV],
    },
  ],
  exports: [UsageFlusher, UsageRepository],
})
export class UsageModule {}
