import { randomBytes } from 'node:crypto';
import { TEST_REDIS_URL } from './test-env';

/** A key prefix no other suite uses, so suites share one Redis without seeing each other's state. */
export function uniqueRedisPrefix(label = 'test'): string {
  return `tgtest:${label}:${randomBytes(4).toString('hex')}:`;
}

/** Deletes every Redis key under `prefix` (what the processes left: limit state, usage buckets). */
export async function deleteRedisPrefix(prefix: string, redisUrl: string = TEST_REDIS_URL): Promise<number> {
  if (prefix.length < 4) throw new Error(`refusing to delete a prefix as short as "${prefix}"`);
  const { default: Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 1000);
      if (keys.length > 0) deleted += await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}
