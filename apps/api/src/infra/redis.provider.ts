import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import Redis from 'ioredis';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';

const logger = new Logger('Redis');

export function createRedis(url: string, name: string): Redis {
  const redis = new Redis(url, {
    connectionName: `tollgate-${name}`,
    // Fail fast instead of queueing forever: callers decide what an unreachable store means.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: true,
    connectTimeout: 2000,
  });
  // ioredis retries by itself; log each distinct connection error once, not once per retry.
  let last = '';
  redis.on('error', (error: Error) => {
    if (error.message === last) return;
    last = error.message;
    logger.warn(`${name} connection: ${error.message}`);
  });
  redis.on('ready', () => (last = ''));
  return redis;
}

/**
 * The API's Redis connection for its own commands (health, usage, login throttling,
 * invalidations). The guard's KeyVerifier opens its own, tuned for the hot path.
 */
@Injectable()
export class RedisConnections implements OnModuleDestroy {
  readonly client: Redis;
  readonly prefix: string;

  constructor(@Inject(ENV) env: Env) {
    this.client = createRedis(env.REDIS_URL, 'cmd');
    this.prefix = env.REDIS_KEY_PREFIX;
  }

  async onModuleDestroy(): Promise<void> {
    await this.client.quit().catch(() => undefined);
  }
}
