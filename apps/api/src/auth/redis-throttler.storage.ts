import type { ThrottlerStorage } from '@nestjs/throttler';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type { RedisConnections } from '../infra/redis.provider';

// A fixed window per tracker, plus a block key once the limit is passed: one atomic script, so
// every API instance counts the same attempts (the throttler's default storage is per-process).
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
local blocked = redis.call('PTTL', KEYS[2])
if blocked > 0 then return {hits, ttl, 1, blocked} end
if hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  return {hits, ttl, 1, tonumber(ARGV[3])}
end
return {hits, ttl, 0, 0}
`;

/** The command ioredis adds for the script (defineCommand: EVALSHA with a NOSCRIPT fallback). */
interface ThrottlerCommands {
  throttlerIncrement?(hitsKey: string, blockKey: string, ttlMs: number, limit: number, blockMs: number): Promise<number[]>;
}

export class RedisThrottlerStorage implements ThrottlerStorage {
  private readonly commands: ThrottlerCommands;

  constructor(private readonly redis: RedisConnections) {
    this.commands = redis.client as unknown as ThrottlerCommands;
    if (!this.commands.throttlerIncrement) this.redis.client.defineCommand('throttlerIncrement', { numberOfKeys: 2, lua: INCREMENT });
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string): Promise<ThrottlerStorageRecord> {
    const base = `${this.redis.prefix}throttle:${throttlerName}:{${key}}`;
    const [totalHits, ttlMs, isBlocked, blockMs] = await this.commands.throttlerIncrement!(`${base}:hits`, `${base}:block`, ttl, limit, blockDuration || ttl);
    // @nestjs/throttler 6 reports both times in seconds.
    return { totalHits, timeToExpire: Math.ceil(Math.max(ttlMs, 0) / 1000), isBlocked: isBlocked === 1, timeToBlockExpire: Math.ceil(Math.max(blockMs, 0) / 1000) };
  }
}

