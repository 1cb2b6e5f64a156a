import { meterBucketKey, meterIndexKey } from '@tollgate/rate-limit';
import { USAGE_OUTCOMES, type UsageCounts, type UsageOutcome } from '@tollgate/contracts';
import { USAGE_METER_PREFIX } from '@tollgate/nest-guard';
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import type { ChainableCommander } from 'ioredis';
import { MINUTE_MS } from './usage-range';

/**
 * @deprecated Use `USAGE_METER_PREFIX` from `@tollgate/nest-guard` (this is the same constant,
 * re-exported only for bench/suites/flusher.ts, which this module does not own).
 */
export const USAGE_KEY_PREFIX = USAGE_METER_PREFIX;

/** What the usage code needs of a Redis connection; `RedisConnections` satisfies it. */
export interface UsageRedis {
  readonly client: Redis;
  readonly prefix: string;
}

/** One key's counts in one minute bucket. */
export interface BucketRow extends UsageCounts {
  keyId: string;
}

/** A claimed (renamed, immutable) minute bucket awaiting or past its Postgres commit. */
export interface Snapshot {
  id: string;
  minuteMs: number;
}

/** What the open-bucket read returns: live hashes plus snapshots, with the Redis time of the read. */
export interface OpenRead {
  nowMs: number;
  /** Live (never claimed) minute hashes: always uncounted in Postgres. */
  live: { minuteMs: number; rows: BucketRow[] }[];
  /** Snapshots: counted in Postgres iff a UsageFlush row with their id exists. */
  snapshots: { id: string; minuteMs: number; rows: BucketRow[] }[];
}

/**
 * Claims closed minute buckets atomically: each live hash is RENAMEd to a snapshot key with a
 * fresh unique id, dropped from the engine's index and recorded as pending. A decision arriving
 * afterwards for the same minute (clock skew, a test clock) starts a new live hash and re-indexes
 * it, so it is claimed later under another id: nothing written to Redis can be lost or read twice.
 * ARGV: [1] live key prefix (`<p>usage:`), [2] snapshot key prefix, [3] index key,
 *       [4] pending zset, [5] snapshot zset, [6] now ms, then pairs (minuteMs, snapshotId).
 * Returns the snapshot ids actually claimed.
 */
const CLAIM_SCRIPT = `
local livePrefix, snapPrefix, index, pending, snaps, now = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6]
local claimed = {}
for i = 7, #ARGV, 2 do
  local minute, id = ARGV[i], ARGV[i + 1]
  local live = livePrefix .. minute
  if redis.call('EXISTS', live) == 1 then
    redis.call('RENAME', live, snapPrefix .. id)
    redis.call('ZADD', pending, now, id)
    redis.call('ZADD', snaps, minute, id)
    claimed[#claimed + 1] = id
  end
  redis.call('ZREM', index, minute)
end
return claimed
`;

/**
 * Reads every uncommitted-or-recent count of minutes [ARGV[6], ARGV[7]] in one atomic step: live
 * hashes from the engine's index and snapshots from the snapshot zset (whose keys still exist).
 * ARGV: [1] live key prefix, [2] snapshot key prefix, [3] index key, [4] snapshot zset, [5] unused,
 *       [6] first minute ms, [7] last minute ms.
 * Returns {nowSec, nowMicro, {{minute, {field, count, ...}}...}, {{id, {field, count, ...}}...}}.
 */
const READ_SCRIPT = `
local livePrefix, snapPrefix, index, snaps = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local t = redis.call('TIME')
local out = {t[1], t[2]}
local live = {}
for _, minute in ipairs(redis.call('ZRANGEBYSCORE', index, ARGV[6], ARGV[7])) do
  live[#live + 1] = {minute, redis.call('HGETALL', livePrefix .. minute)}
end
local snapshots = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', snaps, ARGV[6], ARGV[7])) do
  local h = redis.call('HGETALL', snapPrefix .. id)
  if #h > 0 then snapshots[#snapshots + 1] = {id, h} end
end
out[3] = live
out[4] = snapshots
return out
`;

/** Marks a committed snapshot done: no longer pending; its key lives on for `graceMs` for readers. */
const DONE_SCRIPT = `
redis.call('ZREM', ARGV[1], ARGV[3])
if redis.call('EXISTS', ARGV[2]) == 1 then redis.call('PEXPIRE', ARGV[2], ARGV[4]) end
return 1
`;

/**
 * The scripts as ioredis commands (defineCommand: EVALSHA, SCRIPT LOAD + retry on NOSCRIPT, also
 * inside pipelines), like the throttler storage's. All arguments are ARGV (numberOfKeys 0).
 */
const COMMANDS = { usageClaim: CLAIM_SCRIPT, usageRead: READ_SCRIPT, usageDone: DONE_SCRIPT } as const;

interface UsageCommands {
  usageClaim(...argv: string[]): Promise<string[]>;
  usageRead(...argv: string[]): Promise<[string, string, [string, string[]][], [string, string[]][]]>;
  usageDone(...argv: string[]): Promise<number>;
}

function defineCommands(client: Redis): UsageCommands {
  const commands = client as unknown as Partial<UsageCommands>;
  for (const [name, lua] of Object.entries(COMMANDS)) {
    if (typeof commands[name as keyof UsageCommands] !== 'function') client.defineCommand(name, { numberOfKeys: 0, lua });
  }
  return client as unknown as UsageCommands;
}

const OUTCOME_BY_NAME = new Map<string, UsageOutcome>(USAGE_OUTCOMES.map((outcome) => [outcome, outcome]));

/**
 * Flat HGETALL reply or object -> one row per key. Fields are `<keyId>|<outcome>`; anything else
 * (never written by the engine), and counts that are not positive integers, are ignored.
 */
export function parseBucket(hash: Record<string, string> | readonly string[]): BucketRow[] {
  const byKey = new Map<string, BucketRow>();
  const rows: BucketRow[] = [];
  const add = (field: string, raw: string) => {
    const bar = field.lastIndexOf('|');
    if (bar <= 0) return;
    const outcome = OUTCOME_BY_NAME.get(field.slice(bar + 1));
    const count = Number(raw);
    if (outcome === undefined || !Number.isSafeInteger(count) || count <= 0) return;
    const keyId = field.slice(0, bar);
    let row = byKey.get(keyId);
    if (!row) {
      row = { keyId, valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 };
      byKey.set(keyId, row);
      rows.push(row);
    }
    row[outcome] += count;
  };
  if (isFlat(hash)) for (let i = 0; i + 1 < hash.length; i += 2) add(hash[i], hash[i + 1]);
  else for (const [field, value] of Object.entries(hash)) add(field, value);
  return rows;
}

function isFlat(hash: Record<string, string> | readonly string[]): hash is readonly string[] {
  return Array.isArray(hash);
}

export function snapshotMinute(id: string): number {
  return Number(id.slice(0, id.indexOf('.')));
}

/**
 * The Redis side of metering: the engine's minute buckets (`<p>usage:<minuteMs>`, indexed in
 * `<p>usage:buckets`) and the flusher's snapshots (`<p>usage:snap:<minuteMs>.<random>`, listed in
 * `<p>usage:pending` by claim time until committed, and in `<p>usage:snaps` by minute until expired).
 */
export class UsageStore {
  readonly livePrefix: string;
  readonly indexKey: string;
  readonly snapPrefix: string;
  readonly pendingKey: string;
  readonly snapsKey: string;

  private readonly commands: UsageCommands;

  constructor(private readonly redis: UsageRedis) {
    this.livePrefix = meterBucketKey(redis.prefix, USAGE_METER_PREFIX, 0).slice(0, -1);
    this.indexKey = meterIndexKey(redis.prefix, USAGE_METER_PREFIX);
    this.snapPrefix = `${redis.prefix}${USAGE_METER_PREFIX}snap:`;
    this.pendingKey = `${redis.prefix}${USAGE_METER_PREFIX}pending`;
    this.snapsKey = `${redis.prefix}${USAGE_METER_PREFIX}snaps`;
    this.commands = defineCommands(redis.client);
  }

  private get client(): Redis {
    return this.redis.client;
  }

  /** Redis TIME in ms: the engine's clock, which decides which bucket a decision lands in. */
  async nowMs(): Promise<number> {
    const [sec, micro] = await this.client.time();
    return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
  }

  /** Minute starts in the engine's index whose minute ended at or before `endedBy`. */
  async closedMinutes(endedBy: number, max: number): Promise<number[]> {
    const members = await this.client.zrangebyscore(this.indexKey, '-inf', endedBy - MINUTE_MS, 'LIMIT', 0, max);
    return members.map(Number).filter(Number.isSafeInteger);
  }

  /** Snapshots claimed at or before `claimedBy` and not yet marked done (their flusher may have died). */
  async stalePending(claimedBy: number, max: number): Promise<Snapshot[]> {
    const ids = await this.client.zrangebyscore(this.pendingKey, '-inf', claimedBy, 'LIMIT', 0, max);
    return ids.map((id) => ({ id, minuteMs: snapshotMinute(id) }));
  }

  async claim(minutes: readonly number[], nowMs: number): Promise<Snapshot[]> {
    if (!minutes.length) return [];
    const args: string[] = [this.livePrefix, this.snapPrefix, this.indexKey, this.pendingKey, this.snapsKey, String(nowMs)];
    for (const minute of minutes) args.push(String(minute), `${minute}.${randomBytes(6).toString('hex')}`);
    const claimed = await this.commands.usageClaim(...args);
    return claimed.map((id) => ({ id, minuteMs: snapshotMinute(id) }));
  }

  /** Fields per snapshot (HLEN, one round trip); 0 when its key is gone (committed and expired by another flusher). */
  async fieldCounts(snapshots: readonly Snapshot[]): Promise<number[]> {
    if (!snapshots.length) return [];
    const pipeline = this.client.pipeline();
    for (const snapshot of snapshots) pipeline.hlen(this.snapPrefix + snapshot.id);
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, count]) => {
      if (error) throw error;
      return Number(count);
    });
  }

  /**
   * The counts of a snapshot; empty when its key is gone. Each call is its own command, so when a
   * flusher asks for several at once (ioredis writes them back to back) each resolves as soon as
   * its own reply has arrived and been parsed, not when the last one has.
   */
  async readSnapshot(snapshot: Snapshot): Promise<BucketRow[]> {
    // `call` with the upper-case name skips ioredis's HGETALL reply transformer (keyed on
    // 'hgetall'), which builds an object field by field: 2-3 times the cost of the flat reply on
    // a 10 000-field bucket. Should it ever apply, parseBucket takes the object just the same.
    const reply = await this.client.call('HGETALL', this.snapPrefix + snapshot.id);
    return parseBucket(reply as string[] | Record<string, string>);
  }

  /** After the Postgres commit (or on finding it already committed): keep the keys `graceMs` for readers. */
  async markDone(snapshots: readonly Snapshot[], graceMs: number): Promise<void> {
    if (!snapshots.length) return;
    const pipeline = this.client.pipeline() as ChainableCommander & { usageDone(...argv: string[]): unknown };
    for (const snapshot of snapshots) pipeline.usageDone(this.pendingKey, this.snapPrefix + snapshot.id, snapshot.id, String(graceMs));
    const replies = (await pipeline.exec()) ?? [];
    const failed = replies.find(([error]) => error);
    if (failed) throw failed[0];
  }

  /** Forgets a pending id whose key no longer exists. */
  async forget(snapshot: Snapshot): Promise<void> {
    await this.client.zrem(this.pendingKey, snapshot.id);
  }

  /** Drops snapshot-zset entries whose keys expired. */
  async sweepSnapshots(): Promise<number> {
    const ids = await this.client.zrange(this.snapsKey, 0, -1);
    if (!ids.length) return 0;
    const pipeline = this.client.pipeline();
    for (const id of ids) pipeline.exists(this.snapPrefix + id);
    const replies = (await pipeline.exec()) ?? [];
    const gone = ids.filter((_, i) => replies[i]?.[1] === 0);
    if (gone.length) await this.client.zrem(this.snapsKey, ...gone);
    return gone.length;
  }

  /** Everything Redis still holds for minutes [firstMinuteMs, lastMinuteMs], read atomically. */
  async readOpen(firstMinuteMs: number, lastMinuteMs: number): Promise<OpenRead> {
    const [sec, micro, live, snapshots] = await this.commands.usageRead(this.livePrefix, this.snapPrefix, this.indexKey, this.snapsKey, '', String(firstMinuteMs), String(lastMinuteMs));
    return {
      nowMs: Number(sec) * 1000 + Math.floor(Number(micro) / 1000),
      live: live.map(([minute, hash]) => ({ minuteMs: Number(minute), rows: parseBucket(hash) })),
      snapshots: snapshots.map(([id, hash]) => ({ id, minuteMs: snapshotMinute(id), rows: parseBucket(hash) })),
    };
  }
}
