// The usage flusher on real Postgres + Redis: counts produced by the real engine (RedisStore's
// Lua script, on a test clock so minutes in the past are already closed), moved into the rollups
// by several flushers at once, one of them "killed" mid-flush, with exact totals afterwards.
import Redis from 'ioredis';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordInvalid, RedisStore, type CheckResult } from '@tollgate/rate-limit';
import { USAGE_METER_PREFIX } from '@tollgate/nest-guard';
import { UsageQuerySchema } from '@tollgate/contracts';
import { parseEnv, type Env } from '../../apps/api/src/config/env';
import { PrismaService } from '../../apps/api/src/infra/prisma.service';
import { UsageFlusher, type UsageFlusherOptions } from '../../apps/api/src/usage/usage-flusher';
import { UsageRepository } from '../../apps/api/src/usage/usage.repository';
import { UsageStore } from '../../apps/api/src/usage/usage-store';
import { UsageService } from '../../apps/api/src/usage/usage.service';
import { startAdminHarness, type AdminHarness } from '../support/admin';
import { deleteRedisPrefix, uniqueRedisPrefix } from '../support/redis';
import { TEST_REDIS_URL } from '../support/test-env';
import { waitFor } from '../support/wait-for';

type Outcome = 'valid' | 'rateLimited' | 'quotaExceeded' | 'invalid';
type Tally = Map<string, Record<Outcome, number>>;

const MINUTE = 60_000;
const OUTCOME_BY_CODE: Record<CheckResult['code'], Outcome> = { VALID: 'valid', RATE_LIMITED: 'rateLimited', QUOTA_EXCEEDED: 'quotaExceeded' };

function count(tally: Tally, keyId: string, outcome: Outcome): void {
  let row = tally.get(keyId);
  if (!row) tally.set(keyId, (row = { valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 }));
  row[outcome]++;
}

function total(tally: Tally): number {
  let sum = 0;
  for (const row of tally.values()) sum += row.valid + row.rateLimited + row.quotaExceeded + row.invalid;
  return sum;
}

/** One decision through the real engine, metered like the guard meters it; returns its outcome. */
async function decide(store: RedisStore, keyId: string, nowMs: number, tally: Tally): Promise<void> {
  if (keyId === '-' || keyId.endsWith('-disabled')) {
    await recordInvalid(store, { keyPrefix: USAGE_METER_PREFIX, member: keyId }, nowMs);
    count(tally, keyId, 'invalid');
    return;
  }
  const result = await store.check({
    // Identities per minute / per day: the test clock jumps between minutes, which real time never does.
    limits: [{ name: 'fw', identity: `key:${keyId}:${Math.floor(nowMs / MINUTE)}`, params: { algorithm: 'fixed_window', limit: 25, windowMs: MINUTE } }],
    quota: { identity: `key:${keyId}:${Math.floor(nowMs / 86_400_000)}`, limit: 100, period: 'day' },
    meter: { keyPrefix: USAGE_METER_PREFIX, member: keyId },
    nowMs,
  });
  count(tally, keyId, OUTCOME_BY_CODE[result.code]);
}

interface Instance {
  prisma: PrismaService;
  redis: Redis;
  flusher: UsageFlusher;
  close(): Promise<void>;
}

/** A flusher with its own Postgres pool and Redis connection: what a second API instance runs. */
function flusherInstance(databaseUrl: string, prefix: string, options: Partial<UsageFlusherOptions> = {}): Instance {
  const prisma = new PrismaService({ DATABASE_URL: databaseUrl } as Env);
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  const flusher = new UsageFlusher(new UsageRepository(prisma), { client: redis, prefix }, { intervalMs: 50, staleClaimMs: 300, safetyMarginMs: 0, ...options });
  return {
    prisma,
    redis,
    flusher,
    close: async () => {
      await flusher.stop();
      await prisma.$disconnect();
      redis.disconnect();
    },
  };
}

async function rollupSums(db: Client, granularity: string, keyIds?: string[]): Promise<Tally> {
  const { rows } = await db.query(
    `SELECT "keyId", sum(valid)::int AS valid, sum("rateLimited")::int AS "rateLimited", sum("quotaExceeded")::int AS "quotaExceeded", sum(invalid)::int AS invalid
     FROM "UsageRollup" WHERE granularity = $1 ${keyIds ? 'AND "keyId" = ANY($2)' : ''} GROUP BY "keyId"`,
    keyIds ? [granularity, keyIds] : [granularity],
  );
  return new Map(rows.map((row) => [row.keyId, { valid: row.valid, rateLimited: row.rateLimited, quotaExceeded: row.quotaExceeded, invalid: row.invalid }]));
}

function sorted(tally: Tally): [string, Record<Outcome, number>][] {
  return [...tally].filter(([, row]) => row.valid + row.rateLimited + row.quotaExceeded + row.invalid > 0).sort(([a], [b]) => a.localeCompare(b));
}

/** Nothing left for a flusher in Redis: no live closed bucket, no pending snapshot. */
async function drained(redis: Redis, store: UsageStore): Promise<boolean> {
  const [indexed, pending] = await Promise.all([redis.zcard(store.indexKey), redis.zcard(store.pendingKey)]);
  return indexed === 0 && pending === 0;
}

describe('usage flusher', () => {
  let h: AdminHarness;
  let db: Client;
  let redis: Redis;
  let keyIds: string[];

  beforeAll(async () => {
    h = await startAdminHarness({ USAGE_FLUSH_MS: '100' });
    db = new Client({ connectionString: h.db.url });
    await db.connect();
    redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
    const planId = (await h.call('POST', '/v1/plans', { name: 'metered', limits: [] })).body.id;
    keyIds = [];
    for (const [i, ownerId] of ['acme', 'acme', 'globex', 'initech'].entries()) {
      const key = await h.call('POST', '/v1/keys', { name: `k${i}`, planId, ownerId });
      expect(key.status).toBe(201);
      keyIds.push(key.body.id);
    }
  });

  afterAll(async () => {
    await db?.end();
    redis?.disconnect();
    await h?.close();
  });

  it('5 000 concurrent decisions, three flushers (one killed mid-flush and restarted): every count exactly once at every granularity', async () => {
    const prefix = h.api.env.REDIS_KEY_PREFIX; // the API's own flusher works this prefix too
    const store = new UsageStore({ client: redis, prefix });
    const now = Number((await redis.time())[0]) * 1000;
    // Past minutes (closed at once on the test clock), across hour and day boundaries.
    const minutes = [25 * 60, 130, 61, 60, 59, 31, 12, 5, 3, 2].map((ago) => Math.floor((now - ago * MINUTE) / MINUTE) * MINUTE);
    const members = [...keyIds, `${keyIds[0]}-disabled`, '-'];

    const killed = { before: 0, after: 0 };
    const b = flusherInstance(h.db.url, prefix);
    const victim = flusherInstance(h.db.url, prefix, {
      faults: {
        afterCommit: () => {
          if (killed.after++ === 0) throw new Error('killed after commit, before the Redis release');
        },
        beforeCommit: () => {
          if (killed.after > 0 && killed.before++ === 0) throw new Error('killed inside the flush transaction');
        },
      },
    });
    b.flusher.start();
    victim.flusher.start();

    // Engine traffic on 6 connections, in waves, while the flushers run.
    const connections = Array.from({ length: 6 }, () => new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 }));
    const stores = connections.map((connection) => new RedisStore(connection, { prefix, testClock: true }));
    const tally: Tally = new Map();
    /** Decisions made beyond the 5 000 of the waves (fresh work for the victim). */
    let extra = 0;
    let restarted: Instance | undefined;
    try {
      for (let wave = 0; wave < 10; wave++) {
        await Promise.all(
          Array.from({ length: 500 }, (_, i) => {
            const n = wave * 500 + i;
            const minute = minutes[n % minutes.length];
            return decide(stores[n % stores.length], members[(n * 7 + wave) % members.length], minute + (n % 59_000), tally);
          }),
        );
        if (wave === 5) {
          // The victim has crashed by now (or crashes soon): stop it the hard way and start a fresh one.
          await waitFor(
            async () => {
              if (killed.after > 0 && killed.before > 0) return true;
              // The other flushers may have claimed everything: give the victim fresh work and a
              // run of its own, so the kill does not depend on winning a race on a loaded machine.
              await decide(stores[0], members[0], minutes[3] + 1234, tally);
              extra++;
              await victim.flusher.runOnce().catch(() => undefined);
              return killed.after > 0 && killed.before > 0;
            },
            { what: 'the victim to be killed', timeoutMs: 20_000 },
          );
          await victim.flusher.stop();
          restarted = flusherInstance(h.db.url, prefix);
          restarted.flusher.start();
        }
        await new Promise((resolve) => setTimeout(resolve, 120));
      }
      // The tally holds every decision made, each once: the waves' 5 000 plus the extra ones.
      expect(total(tally)).toBe(5000 + extra);
      await waitFor(() => drained(redis, store), { what: 'every bucket to be flushed', timeoutMs: 20_000 });
      // One more pass on each, so any run in flight when the queue emptied has committed.
      await Promise.all([b.flusher.runOnce(), restarted!.flusher.runOnce()]);
    } finally {
      await Promise.all(connections.map((connection) => connection.quit()));
      await Promise.all([b.close(), victim.close(), restarted?.close()]);
    }

    expect(killed.after).toBeGreaterThanOrEqual(1);
    expect(killed.before).toBeGreaterThanOrEqual(1);
    const expected = sorted(tally);
    expect(new Set(tally.keys()).size).toBe(members.length);
    expect(expected.some(([, row]) => row.rateLimited > 0)).toBe(true);
    expect(expected.some(([, row]) => row.quotaExceeded > 0)).toBe(true);
    for (const granularity of ['minute', 'hour', 'day']) {
      const stored = await rollupSums(db, granularity, members);
      expect(total(stored), granularity).toBe(total(tally));
      expect(sorted(stored), granularity).toEqual(expected);
    }
    // ownerId/planId come from the key; the unknown-secret row has neither.
    const owners = await db.query(`SELECT DISTINCT "keyId", "ownerId", "planId" FROM "UsageRollup" WHERE "keyId" = ANY($1)`, [members]);
    expect(owners.rows.find((row) => row.keyId === keyIds[2])).toMatchObject({ ownerId: 'globex' });
    expect(owners.rows.find((row) => row.keyId === '-')).toMatchObject({ ownerId: null, planId: null });
    // lastUsedAt: the latest minute with an authenticated decision, in batches.
    const used = await db.query(`SELECT "keyId" AS id, "lastUsedAt" FROM "ApiKeyActivity" WHERE "keyId" = ANY($1)`, [keyIds]);
    expect(used.rows.map((row) => row.id).sort()).toEqual([...keyIds].sort());
    for (const row of used.rows) expect(row.lastUsedAt?.getTime()).toBe(Math.max(...minutes));
    // ...and the keys API shows it (one key, and the list).
    const lastUsedAt = new Date(Math.max(...minutes)).toISOString();
    expect((await h.call('GET', `/v1/keys/${keyIds[0]}`)).body.lastUsedAt).toBe(lastUsedAt);
    const listed = await h.call('GET', '/v1/keys?limit=100');
    expect(listed.body.items.filter((key: { id: string }) => keyIds.includes(key.id)).map((key: { lastUsedAt: string }) => key.lastUsedAt)).toEqual(keyIds.map(() => lastUsedAt));

    // The API answers the same totals (everything flushed; nothing live left for these minutes).
    const from = new Date(Math.min(...minutes) - 86_400_000).toISOString().slice(0, 10);
    const api = await h.call('GET', `/v1/usage?granularity=day&from=${from}`);
    expect(api.status).toBe(200);
    const sum = expected.reduce((acc, [, row]) => ({ valid: acc.valid + row.valid, rateLimited: acc.rateLimited + row.rateLimited, quotaExceeded: acc.quotaExceeded + row.quotaExceeded, invalid: acc.invalid + row.invalid }), { valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 });
    expect(api.body.totals).toEqual(sum);
  }, 60_000);

  describe('on a Redis prefix of its own', () => {
    let prefix: string;
    let store: RedisStore;
    let usage: UsageStore;
    const instances: Instance[] = [];
    const instance = (options: Partial<UsageFlusherOptions> = {}) => {
      const created = flusherInstance(h.db.url, prefix, options);
      instances.push(created);
      return created;
    };

    beforeAll(() => {
      prefix = uniqueRedisPrefix('usage');
      store = new RedisStore(redis, { prefix, testClock: true });
      usage = new UsageStore({ client: redis, prefix });
    });
    afterAll(async () => {
      await Promise.all(instances.map((created) => created.close()));
      await deleteRedisPrefix(prefix);
    });

    /** `count` decisions for `keyId`, `minutesAgo` minutes back, committed by a flusher that crashes before the Redis release. */
    const committedNotReleased = async (keyId: string, minutesAgo: number, count: number): Promise<Tally> => {
      const minute = Math.floor((Date.now() - minutesAgo * MINUTE) / MINUTE) * MINUTE;
      const tally: Tally = new Map();
      for (let i = 0; i < count; i++) await decide(store, keyId, minute + Math.floor((i * MINUTE) / count), tally);
      const crashing = instance({ staleClaimMs: 0, faults: { afterCommit: () => { throw new Error('crash after commit'); } } });
      await expect(crashing.flusher.runOnce()).rejects.toThrow('crash after commit');
      return tally;
    };

    it('a crash after the commit but before the Redis release does not double count on the retry', async () => {
      const keyId = 'key_idempotency';
      const tally = await committedNotReleased(keyId, 10, 60);
      expect(await redis.zcard(usage.pendingKey)).toBe(1); // still pending: the release never ran
      expect(sorted(await rollupSums(db, 'minute', [keyId]))).toEqual(sorted(tally));

      // The same bucket flushed again (the takeover, then a plain retry): marker found, nothing added.
      const retry = instance({ staleClaimMs: 0 });
      expect(await retry.flusher.runOnce()).toMatchObject({ committed: 0, skipped: 1 });
      expect(await retry.flusher.runOnce()).toMatchObject({ committed: 0, skipped: 0 });
      expect(await drained(redis, usage)).toBe(true);
      for (const granularity of ['minute', 'hour', 'day']) expect(sorted(await rollupSums(db, granularity, [keyId]))).toEqual(sorted(tally));
    });

    it('two flushers on the same closed buckets at once, and a late write after the claim: exact', async () => {
      const keyId = 'key_race';
      const minute = Math.floor((Date.now() - 20 * MINUTE) / MINUTE) * MINUTE;
      const tally: Tally = new Map();
      await Promise.all(Array.from({ length: 300 }, (_, i) => decide(store, i % 5 === 0 ? `${keyId}-disabled` : keyId, minute + (i % 60) * 1000, tally)));
      const [one, two] = [instance({ staleClaimMs: 0 }), instance({ staleClaimMs: 0 })];
      const stats = await Promise.all([one.flusher.runOnce(), two.flusher.runOnce(), one.flusher.runOnce()]);
      expect(stats[0]).toBe(stats[2]); // runOnce during a run joins it rather than overlapping
      // A decision for the already-claimed minute (a skewed clock) lands in a new bucket, flushed later.
      await decide(store, keyId, minute + 59_999, tally);
      await Promise.all([one.flusher.runOnce(), two.flusher.runOnce()]);
      expect(await drained(redis, usage)).toBe(true);
      for (const granularity of ['minute', 'hour', 'day']) expect(sorted(await rollupSums(db, granularity, [keyId, `${keyId}-disabled`]))).toEqual(sorted(tally));
    });

    it('a minute flushed in two parts by separate runs: the second part adds to the first part\'s minute row', async () => {
      // The second part's minute rows are first written as plain INSERTs, meet the first part's
      // rows, and the transaction runs again with upserts: the sums must come out exact all the same.
      const keyId = 'key_two_parts';
      const minute = Math.floor((Date.now() - 30 * MINUTE) / MINUTE) * MINUTE;
      const tally: Tally = new Map();
      for (let i = 0; i < 40; i++) await decide(store, i % 4 === 0 ? '-' : keyId, minute + i * 1000, tally);
      const flusher = instance({ staleClaimMs: 0 });
      expect(await flusher.flusher.runOnce()).toMatchObject({ committed: 1 });
      for (let i = 0; i < 15; i++) await decide(store, i % 5 === 0 ? '-' : keyId, minute + 50_000 + i, tally);
      expect(await flusher.flusher.runOnce()).toMatchObject({ committed: 1, skipped: 0 });
      expect(await drained(redis, usage)).toBe(true);
      const minuteRows = await db.query(`SELECT count(*)::int AS n FROM "UsageRollup" WHERE "keyId" = $1 AND granularity = 'minute'`, [keyId]);
      expect(minuteRows.rows[0].n).toBe(1);
      for (const granularity of ['minute', 'hour', 'day']) expect(sorted(await rollupSums(db, granularity, [keyId]))).toEqual(sorted(new Map([[keyId, tally.get(keyId)!]])));
    });

    it('one run over many transactions (a backlog larger than a transaction) and a takeover: exact at every granularity', async () => {
      const keys = Array.from({ length: 6 }, (_, i) => `key_backlog_${i}`);
      // 12 minutes across an hour boundary, a few keys each: with 7 fields a transaction, the run
      // needs many transactions, the next snapshots read while the previous ones commit.
      const hour = Math.floor((Date.now() - 3 * 3_600_000) / 3_600_000) * 3_600_000;
      const minutes = Array.from({ length: 12 }, (_, i) => hour - 6 * MINUTE + i * MINUTE);
      const tally: Tally = new Map();
      for (const [m, minuteMs] of minutes.entries()) {
        for (let i = 0; i < 10; i++) await decide(store, keys[(m + i) % keys.length], minuteMs + i * 100, tally);
      }
      // A first flusher dies in its third transaction; the others before it are committed.
      let transactions = 0;
      const crashing = instance({
        staleClaimMs: 0,
        maxFieldsPerTransaction: 7,
        faults: {
          beforeCommit: () => {
            if (++transactions === 3) throw new Error('killed in the third transaction');
          },
        },
      });
      await expect(crashing.flusher.runOnce()).rejects.toThrow('killed in the third transaction');
      expect(await redis.zcard(usage.pendingKey)).toBeGreaterThan(0);
      const takeover = instance({ staleClaimMs: 0, maxFieldsPerTransaction: 7 });
      const stats = await takeover.flusher.runOnce();
      expect(stats.committed).toBeGreaterThan(0);
      expect(await drained(redis, usage)).toBe(true);
      for (const granularity of ['minute', 'hour', 'day']) expect(sorted(await rollupSums(db, granularity, keys)), granularity).toEqual(sorted(tally));
      const hourRows = await db.query(`SELECT DISTINCT "bucketStart" FROM "UsageRollup" WHERE "keyId" = ANY($1) AND granularity = 'hour'`, [keys]);
      expect(hourRows.rows.length).toBe(2);
    });

    it('a crash with one part of a snapshot committed: reads count each decision once at every granularity; the takeover adds only the missing part', async () => {
      const service = new UsageService(new UsageRepository(instance().prisma), usage, parseEnv({}));
      // Read before the flusher's own clock moves the range: the minute, its hour and its day.
      const totals = async (keyId: string, minute: number) =>
        Promise.all(
          (['minute', 'hour', 'day'] as const).map(async (granularity) => {
            const from = new Date(granularity === 'day' ? minute - 86_400_000 : minute - 2 * 3_600_000).toISOString();
            const read = await service.series(UsageQuerySchema.parse({ keyId, granularity, from, to: new Date().toISOString() }));
            return [granularity, read.totals];
          }),
        );
      for (const [failing, offset] of [['hourDay', 50], ['minute', 55]] as const) {
        const keyId = `key_half_${failing}`;
        const minute = Math.floor((Date.now() - offset * MINUTE) / MINUTE) * MINUTE;
        const tally: Tally = new Map();
        for (let i = 0; i < 30; i++) await decide(store, keyId, minute + i * 1000, tally);
        const expected = (['minute', 'hour', 'day'] as const).map((granularity) => [granularity, tally.get(keyId)]);

        const crashing = instance({ staleClaimMs: 0, faults: { beforePart: (part) => { if (part === failing) throw new Error(`killed before the ${part} part`); } } });
        await expect(crashing.flusher.runOnce()).rejects.toThrow(`killed before the ${failing} part`);
        expect(await redis.zcard(usage.pendingKey), failing).toBe(1); // not released: one part is missing
        const committed = failing === 'hourDay' ? 'minute' : 'hour';
        const missing = failing === 'hourDay' ? 'hour' : 'minute';
        expect(sorted(await rollupSums(db, committed, [keyId])), failing).toEqual(sorted(tally));
        expect((await rollupSums(db, missing, [keyId])).size, failing).toBe(0);
        // Half in Postgres, all of it in Redis: every read counts each decision once.
        expect(await totals(keyId, minute), failing).toEqual(expected);

        const takeover = instance({ staleClaimMs: 0 });
        expect(await takeover.flusher.runOnce(), failing).toMatchObject({ committed: 1, skipped: 0, decisions: failing === 'minute' ? 30 : 0 });
        expect(await drained(redis, usage)).toBe(true);
        for (const granularity of ['minute', 'hour', 'day']) expect(sorted(await rollupSums(db, granularity, [keyId])), `${failing}: ${granularity}`).toEqual(sorted(tally));
        expect(await totals(keyId, minute), failing).toEqual(expected);
      }
    });

    it('a snapshot committed whole by a flusher from before the parts (one marker, its bare id) is not applied again', async () => {
      const keyId = 'key_upgrade';
      const tally = await committedNotReleased(keyId, 60, 20);
      // What the earlier flusher left for the same commit: one marker, named by the snapshot id.
      const [snapshotId] = await redis.zrange(usage.pendingKey, 0, -1);
      const parts = await db.query(`DELETE FROM "UsageFlush" WHERE "bucketId" LIKE $1 || '#%' RETURNING "bucketId"`, [snapshotId]);
      expect(parts.rows.map((row) => row.bucketId).sort()).toEqual([`${snapshotId}#hd`, `${snapshotId}#m`]);
      await db.query(`INSERT INTO "UsageFlush" ("bucketId") VALUES ($1)`, [snapshotId]);

      expect(await instance({ staleClaimMs: 0 }).flusher.runOnce()).toMatchObject({ committed: 0, skipped: 1 });
      expect(await drained(redis, usage)).toBe(true);
      for (const granularity of ['minute', 'hour', 'day']) expect(sorted(await rollupSums(db, granularity, [keyId])), granularity).toEqual(sorted(tally));
    });

    it('retention: the prune removes minute rows past 7 days and hour rows past 90, keeps day rows', async () => {
      const now = Date.now();
      const keyId = 'key_retention';
      const tally: Tally = new Map();
      for (const daysAgo of [1, 8, 100]) await decide(store, keyId, Math.floor((now - daysAgo * 86_400_000) / MINUTE) * MINUTE, tally);
      const flusher = instance({ staleClaimMs: 0, pruneEveryMs: 0 });
      await flusher.flusher.runOnce();
      const rows = async (granularity: string) =>
        (await db.query(`SELECT "bucketStart" FROM "UsageRollup" WHERE "keyId" = $1 AND granularity = $2 ORDER BY 1`, [keyId, granularity])).rows.length;
      expect([await rows('minute'), await rows('hour'), await rows('day')]).toEqual([3, 3, 3]);

      const pruned = await flusher.flusher.prune(now);
      expect(pruned.minute).toBeGreaterThanOrEqual(2);
      expect([await rows('minute'), await rows('hour'), await rows('day')]).toEqual([1, 2, 3]);
      // Flush markers go after 3 days (longer than any Redis bucket can live).
      const markers = async () => Number((await db.query(`SELECT count(*) FROM "UsageFlush"`)).rows[0].count);
      expect(await markers()).toBeGreaterThan(0);
      await flusher.flusher.prune(now + 4 * 86_400_000);
      expect(await markers()).toBe(0);
      expect(await rows('day')).toBe(3);
    });
  });
});
