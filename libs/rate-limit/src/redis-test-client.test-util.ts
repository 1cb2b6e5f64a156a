import Redis from 'ioredis';
// Tests (never the library) share the workspace's key-isolation helper, as the test guide asks.
// eslint-disable-next-line no-restricted-imports
import { uniqueRedisPrefix } from '../../../test/support/redis';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export { uniqueRedisPrefix };

export function connectTestRedis(): Redis {
  return new Redis(TEST_REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
}

/** Deletes every key under a test prefix (SCAN, never KEYS on a shared server). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

export async function keysUnder(redis: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found.sort();
}
