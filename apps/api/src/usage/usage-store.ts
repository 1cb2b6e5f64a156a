import { meterBucketKey, meterIndexKey } from '@tollgate/rate-limit';
import type { UsageCounts, UsageOutcome } from '@tollgate/contracts';
import { createHash, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';

/** The meter key prefix the engine writes usage buckets under (see libs/nest-guard USAGE_METER_PREFIX). */
export const USAGE_KEY_PREFIX = 'usage:';

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

const OUTCOMES: readonly UsageOutcome[] = ['valid', 'rateLimited', 'quotaExceeded', 'invalid'];
const OUTCOME_SET = new Set<string>(OUTCOMES);

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

const SHAS = new Map<string, string>();
function sha1(script: string): string {
  let sha = SHAS.get(script);
  if (!sha) SHAS.set(script, (sha = createHash('sha1').update(script).digest('hex')));
  return sha;
}

export function emptyCounts(): UsageCounts {
  return { valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 };
}

/** `key_x|valid` -> ['key_x', 'valid']; anything else (never written by the engine) is ignored. */
function parseField(field: string): [string, UsageOutcome] | null {
  const bar = field.lastIndexOf('|');
  if (bar <= 0) return null;
  const outcome = field.slice(bar + 1);
  return OUTCOME_SET.has(outcome) ? [field.slice(0, bar), outcome as UsageOutcome] : null;
}

/** Flat HGETALL reply or object -> one row per key. */
export function parseBucket(hash: Record<string, string> | string[]): BucketRow[] {
  const byKey = new Map<string, BucketRow>();
  const add = (field: string, raw: string) => {
    const parsed = parseField(field);
    const count = Number(raw);
    if (!parsed || !Number.isSafeInteger(count) || count <= 0) return;
    const [keyId, outcome] = parsed;
    let row = byKey.get(keyId);
    if (!row) byKey.set(keyId, (row = { keyId, ...emptyCounts() }));
    row[outcome] += count;
  };
  if (Array.isArray(hash)) for (let i = 0; i + 1 < hash.length; i += 2) add(hash[i], hash[i + 1]);
  else for (const [field, value] of Object.entries(hash)) add(field, value);
  return [...byKey.values()];
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

  constructor(private readonly redis: UsageRedis) {
    this.livePrefix = meterBucketKey(redis.prefix, USAGE_KEY_PREFIX, 0).slice(0, -1);
    this.indexKey = meterIndexKey(redis.prefix, USAGE_KEY_PREFIX);
    this.snapPrefix = `${redis.prefix}${USAGE_KEY_PREFIX}snap:`;
    this.pendingKey = `${redis.prefix}${USAGE_KEY_PREFIX}pending`;
    this.snapsKey = `${redis.prefix}${USAGE_KEY_PREFIX}snaps`;
  }

  private get client(): Redis {
    return this.redis.client;
  }

  /** EVALSHA with a one-time SCRIPT LOAD on NOSCRIPT (after a restart or SCRIPT FLUSH). */
  private async run(script: string, args: string[]): Promise<unknown> {
    const sha = sha1(script);
    try {
      return await this.client.evalsha(sha, 0, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      await this.client.script('LOAD', script);
      return this.client.evalsha(sha, 0, ...args);
    }
  }

  /** Redis TIME in ms: the engine's clock, which decides which bucket a decision lands in. */
  async nowMs(): Promise<number> {
    const [sec, micro] = await this.client.time();
    return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
  }

  /** Minute starts in the engine's index whose minute ended at or before `endedBy`. */
  async closedMinutes(endedBy: number, max: number): Promise<number[]> {
    const members = await this.client.zrangebyscore(this.indexKey, '-inf', endedBy - 60_000, 'LIMIT', 0, max);
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
    const claimed = (await this.run(CLAIM_SCRIPT, args)) as string[];
    return claimed.map((id) => ({ id, minuteMs: snapshotMinute(id) }));
  }

  /** The counts of each snapshot; `null` when its key is gone (committed and expired by another flusher). */
  async readSnapshots(snapshots: readonly Snapshot[]): Promise<(BucketRow[] | null)[]> {
    if (!snapshots.length) return [];
    const pipeline = this.client.pipeline();
    for (const snapshot of snapshots) pipeline.hgetall(this.snapPrefix + snapshot.id);
    const replies = (await pipeline.exec()) ?? [];
    return replies.map(([error, hash]) => {
      if (error) throw error;
      const record = hash as Record<string, string>;
      return Object.keys(record).length ? parseBucket(record) : null;
    });
  }

  /** After the Postgres commit (or on finding it already committed): keep the keys `graceMs` for readers. */
  async markDone(snapshots: readonly Snapshot[], graceMs: number): Promise<void> {
    if (!snapshots.length) return;
    const pipeline = this.client.pipeline();
    for (const snapshot of snapshots) pipeline.evalsha(sha1(DONE_SCRIPT), 0, this.pendingKey, this.snapPrefix + snapshot.id, snapshot.id, String(graceMs));
    const replies = (await pipeline.exec()) ?? [];
    if (replies.some(([error]) => error)) {
      // NOSCRIPT after a Redis restart: load it and go one by one.
      for (const snapshot of snapshots) await this.run(DONE_SCRIPT, [this.pendingKey, this.snapPrefix + snapshot.id, snapshot.id, String(graceMs)]);
    }
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
    const reply = (await this.run(READ_SCRIPT, [this.livePrefix, this.snapPrefix, this.indexKey, this.snapsKey, '', String(firstMinuteMs), String(lastMinuteMs)])) as [string, string, [string, string[]][], [string, string[]][]];
    const [sec, micro, live, snapshots] = reply;
    return {
      nowMs: Number(sec) * 1000 + Math.floor(Number(micro) / 1000),
      live: live.map(([minute, hash]) => ({ minuteMs: Number(minute), rows: parseBucket(hash) })),
      snapshots: snapshots.map(([id, hash]) => ({ id, minuteMs: snapshotMinute(id), rows: parseBucket(hash) })),
    };
  }
}
