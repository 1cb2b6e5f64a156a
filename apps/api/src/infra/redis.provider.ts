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

/** Shared Redis connections: one for commands, one dedicated to pub/sub subscriptions. */
@Injectable()
export class RedisConnections implements OnModuleDestroy {
  readonly client: Redis;
  readonly prefix: string;
  private subscriberConnection?: Redis;

  constructor(@Inject(ENV) private readonly env: Env) {
    this.client = createRedis(env.REDIS_URL, 'cmd');
    this.prefix = env.REDIS_KEY_PREFIX;
  }

  /** A connection in subscriber mode may not run other commands, hence its own. */
  get subscriber(): Redis {
    this.subscriberConnection ??= createRedis(this.env.REDIS_URL, 'sub');
    return this.subscriberConnection;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.allSettled([this.client.quit(), this.subscriberConnection?.quit()]);
  }
}
