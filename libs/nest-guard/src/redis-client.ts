import Redis from 'ioredis';
import type { RedisScriptClient } from '@tollgate/rate-limit';

// ioredis types listeners with any[]; the events we use are 'message', 'ready', 'close', 'error'.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EventListener = (...args: any[]) => void;

/**
 * The part of an ioredis client the guard uses, typed structurally so a client from any copy of
 * ioredis 5 (each workspace may have its own) fits.
 */
export interface GuardRedisClient extends RedisScriptClient {
  readonly status: string;
  ping(): Promise<unknown>;
  publish(channel: string, message: string): Promise<number>;
  subscribe(channel: string): Promise<unknown>;
  duplicate(): GuardRedisClient;
  on(event: string, listener: EventListener): unknown;
  removeListener(event: string, listener: EventListener): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/**
 * The connection the guard opens from a URL: no offline queue, so a command while Redis is down
 * fails at once instead of waiting and being charged late; quick reconnects so recovery is fast.
 */
export function createGuardRedis(url: string, connectionName = 'tollgate-guard'): Redis {
  const redis = new Redis(url, {
    connectionName,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(50 * times, 500),
    // No auto-pipelining: measured on the guard bench it cut throughput by ~20 % (10.7 k vs
    // 13.3 k req/s), because holding each EVALSHA until the end of the event-loop turn stops Redis
    // from working on the first requests while Node still parses the rest.
  });
  // Connection errors surface as failed commands (and the breaker); this only keeps them off stderr.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves when the client is ready, or after `timeoutMs` anyway (the fail modes cover a down Redis). */
export function waitForReady(redis: GuardRedisClient, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.removeListener('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}
