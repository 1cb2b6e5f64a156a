import type { Socket } from 'node:net';
import Redis from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { uniqueRedisPrefix } from '../../../test/support/redis';
import { TEST_REDIS_URL, waitUntil } from './guard-app.test-util';
import { createGuardRedis, waitForReady } from './redis-client';

/** Counts the socket-level writes (one per write/writev syscall batch) of a client's current stream. */
function countWrites(redis: Redis): { writes: number; chunks: number; restore(): void } {
  const stream = redis.stream as Socket & {
    _write: (chunk: unknown, encoding: unknown, cb: unknown) => void;
    _writev: (chunks: unknown[], cb: unknown) => void;
  };
  const counter = { writes: 0, chunks: 0, restore: () => undefined as void };
  const write = stream._write;
  const writev = stream._writev;
  stream._write = function (chunk, encoding, cb) {
    counter.writes++;
    counter.chunks++;
    return write.call(this, chunk, encoding, cb);
  };
  stream._writev = function (chunks, cb) {
    counter.writes++;
    counter.chunks += chunks.length;
    return writev.call(this, chunks, cb);
  };
  counter.restore = () => {
    stream._write = write;
    stream._writev = writev;
  };
  return counter;
}

describe('the guard connection (WriteCoalescingRedis)', () => {
  const prefix = uniqueRedisPrefix('nest-guard-coalesce');
  const connectionName = `tollgate-coalesce-${process.pid}-${Date.now()}`;
  let redis: Redis;
  let admin: Redis;

  beforeAll(async () => {
    redis = createGuardRedis(TEST_REDIS_URL, connectionName);
    admin = new Redis(TEST_REDIS_URL);
    expect(await waitForReady(redis, 5000)).toBe(true);
  });

  afterEach(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length) await admin.del(...keys);
  });

  afterAll(async () => {
    redis.disconnect();
    await admin.quit();
  });

  it('sends the commands of one event-loop turn together: the first at once, the rest in slices of 32, replies in order', async () => {
    const counter = countWrites(redis);
    try {
      const replies = Promise.all(Array.from({ length: 50 }, (_, i) => redis.incrby(`${prefix}n`, i + 1)));
      // The first command left at once, then a full slice of 32; the last 17 wait for the turn's end.
      expect(counter.writes).toBe(2);
      expect(counter.chunks).toBe(33);
      const values = await replies;
      expect(counter.writes).toBe(3);
      expect(counter.chunks).toBe(50);
      // INCRBY's running sums: each reply belongs to its own command.
      expect(values).toEqual(Array.from({ length: 50 }, (_, i) => ((i + 1) * (i + 2)) / 2));
    } finally {
      counter.restore();
    }
  });

  it('holds nothing past its turn: commands of separate turns leave separately', async () => {
    const counter = countWrites(redis);
    try {
      for (let i = 0; i < 5; i++) await redis.set(`${prefix}k${i}`, String(i));
      expect(counter.writes).toBe(5);
      expect(await admin.mget(...Array.from({ length: 5 }, (_, i) => `${prefix}k${i}`))).toEqual(['0', '1', '2', '3', '4']);
    } finally {
      counter.restore();
    }
  });

  it('keeps working after its connection is killed and re-established', async () => {
    await redis.set(`${prefix}before`, '1');
    // Only this test's connection (by its unique name): other suites share this Redis.
    const clients = String(await admin.client('LIST'));
    const ids = clients
      .split('\n')
      .filter((line) => line.includes(` name=${connectionName} `))
      .map((line) => /(?:^|\s)id=(\d+)/.exec(line)?.[1]);
    expect(ids.length).toBe(1);
    await admin.client('KILL', 'ID', ids[0]!);
    await waitUntil(async () => {
      try {
        return (await redis.ping()) === 'PONG';
      } catch {
        return false;
      }
    }, 5000);
    const values = await Promise.all(Array.from({ length: 20 }, () => redis.incr(`${prefix}after`)));
    expect(values).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});
