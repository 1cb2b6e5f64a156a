import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import type { UsageCounts, UsageGranularity } from '@tollgate/contracts';
import { PrismaService } from '../infra/prisma.service';
import { queueRateLimitExceeded, type RateLimitedMinute } from '../webhooks/webhooks.repository';
import { addCounts } from './usage-counts';
import { DAY_MS, HOUR_MS } from './usage-range';
import type { BucketRow, OpenRead } from './usage-store';

/** At most one of these narrows a usage read; none means every key (and unknown secrets). */
export interface UsageFilter {
  keyId?: string;
  ownerId?: string;
  planId?: string;
}

export interface KeyInfo {
  id: string;
  name: string;
  ownerId: string | null;
  planId: string | null;
}

export interface RetentionCutoffs {
  /** Minute rows with bucketStart before this (ms) are deleted. */
  minuteBefore: number;
  hourBefore: number;
  /** UsageFlush markers flushed before this are deleted. */
  flushMarkerBefore: number;
}

/** What a consistent read of rollups + Redis returns; see UsageService for how it is merged. */
export interface ConsistentRead<T> {
  stored: T;
  open: OpenRead;
  /** Ids of the snapshots in `open` that Postgres had already counted when `stored` was read. */
  flushed: Set<string>;
  /** Key info of every key id seen in `open`. */
  keys: Map<string, KeyInfo>;
}

export interface TopRow extends UsageCounts {
  keyId: string;
}

/** Rows per INSERT statement of a flush; one bucket may need several, all in its transaction. */
const FLUSH_CHUNK = 5000;
const FLUSH_ATTEMPTS = 4;

/** A timestamp(3) (UTC by convention, as Prisma stores them) from epoch ms, exactly. */
function ts(ms: number): Prisma.Sql {
  return Prisma.sql`('epoch'::timestamp + ${ms}::bigint * interval '1 millisecond')`;
}

function filterSql(filter: UsageFilter): Prisma.Sql {
  if (filter.keyId !== undefined) return Prisma.sql`AND "keyId" = ${filter.keyId}`;
  if (filter.ownerId !== undefined) return Prisma.sql`AND "ownerId" = ${filter.ownerId}`;
  if (filter.planId !== undefined) return Prisma.sql`AND "planId" = ${filter.planId}`;
  return Prisma.empty;
}

function retryable(error: unknown): boolean {
  // Deadlocks (40P01), serialization failures (40001) and dropped connections are worth another go;
  // every flush is idempotent, so a retry can never double count.
  const text = error instanceof Error ? `${(error as { code?: string }).code ?? ''} ${error.message}` : String(error);
  return /40P01|40001|P2034|deadlock|serializ|could not serialize|Connection|ECONNRESET|terminat/i.test(text);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs an idempotent database step, again (up to FLUSH_ATTEMPTS in all, with a short jittered pause) on a deadlock or lost connection. */
async function withRetry<T>(step: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= FLUSH_ATTEMPTS || !retryable(error)) throw error;
      await sleep(20 * attempt + Math.random() * 50);
    }
  }
}

/** What usage answers need of a key; one select for every read of it. */
const KEY_INFO_SELECT = { id: true, name: true, ownerId: true, planId: true } as const satisfies Prisma.ApiKeySelect;

@Injectable()
export class UsageRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Counts a batch of snapshots into the rollups, each exactly once: the UsageFlush markers and
   * every rollup change commit together, and a snapshot whose marker already exists (a crashed or
   * concurrent flusher committed it) contributes nothing. Returns the ids applied by this call.
   *
   * Minute, hour and day rows are all additive upserts (a minute claimed in two parts, after a late
   * decision, adds up too), pre-aggregated per row so N buckets of one hour cost one hour row per
   * key. Rows are written in (keyId, granularity, bucketStart) order, so two flushers upserting the
   * same hour/day rows lock them in the same order; a deadlock or lost connection is retried.
   *
   * The same transaction queues `ratelimit.exceeded` for every (key, minute) with rejections among
   * the applied snapshots (see queueRateLimitExceeded): the event commits with the counts it
   * reports, so neither a crash nor a failed insert can lose it, and a retry cannot repeat it.
   */
  async flushBuckets(snapshots: readonly { id: string; minuteMs: number; rows: readonly BucketRow[] }[]): Promise<Set<string>> {
    if (!snapshots.length) return new Set();
    const ids = snapshots.map((snapshot) => snapshot.id);
    return withRetry(() =>
      this.prisma.$transaction(
        async (tx) => {
          const marked = await tx.$queryRaw<{ bucketId: string }[]>`
            INSERT INTO "UsageFlush" ("bucketId") SELECT unnest(${ids}::text[]) ON CONFLICT DO NOTHING RETURNING "bucketId"`;
          const applied = new Set(marked.map((row) => row.bucketId));
          const appliedSnapshots = snapshots.filter((snapshot) => applied.has(snapshot.id));
          const rollups = aggregate(appliedSnapshots);
          for (let i = 0; i < rollups.length; i += FLUSH_CHUNK) await tx.$executeRaw(upsertRollups(rollups.slice(i, i + FLUSH_CHUNK)));
          await queueRateLimitExceeded(tx, rateLimitedMinutes(appliedSnapshots));
          return applied;
        },
        { timeout: 120_000, maxWait: 10_000 },
      ),
    );
  }

  /** Raises ApiKey.lastUsedAt to each given time (never lowers it); one statement per batch. */
  async touchLastUsed(lastUsed: ReadonlyMap<string, number>): Promise<void> {
    if (!lastUsed.size) return;
    const ids = [...lastUsed.keys()].sort();
    const times = ids.map((id) => lastUsed.get(id)!);
    // Lock in id order first: two flushers touching overlapping keys cannot deadlock.
    await withRetry(
      () => this.prisma.$executeRaw`
        WITH input AS (SELECT * FROM unnest(${ids}::text[], ${times}::bigint[]) AS t(id, ms)),
        locked AS (SELECT k.id FROM "ApiKey" k JOIN input i ON i.id = k.id ORDER BY k.id FOR UPDATE OF k)
        UPDATE "ApiKey" AS k SET "lastUsedAt" = ('epoch'::timestamp + i.ms * interval '1 millisecond')
        FROM input i, locked l
        WHERE k.id = i.id AND l.id = i.id
          AND (k."lastUsedAt" IS NULL OR k."lastUsedAt" < ('epoch'::timestamp + i.ms * interval '1 millisecond'))`,
    );
  }

  /** Deletes rollups and flush markers past retention; returns how many rows of each went. */
  async prune(cutoffs: RetentionCutoffs): Promise<{ minute: number; hour: number; flushMarkers: number }> {
    const minute = await this.prisma.$executeRaw`DELETE FROM "UsageRollup" WHERE granularity = 'minute' AND "bucketStart" < ${ts(cutoffs.minuteBefore)}`;
    const hour = await this.prisma.$executeRaw`DELETE FROM "UsageRollup" WHERE granularity = 'hour' AND "bucketStart" < ${ts(cutoffs.hourBefore)}`;
    const flushMarkers = await this.prisma.$executeRaw`DELETE FROM "UsageFlush" WHERE "flushedAt" < ${ts(cutoffs.flushMarkerBefore)}`;
    return { minute, hour, flushMarkers };
  }

  /** Key ids of an owner or a plan (revoked keys included: their usage stays readable). */
  async keyIdsFor(filter: { ownerId?: string; planId?: string }): Promise<string[]> {
    const where = filter.ownerId !== undefined ? { ownerId: filter.ownerId } : { planId: filter.planId };
    const rows = await this.prisma.apiKey.findMany({ where, select: { id: true } });
    return rows.map((row) => row.id);
  }

  async keyInfo(ids: readonly string[]): Promise<Map<string, KeyInfo>> {
    const real = ids.filter((id) => id !== '-');
    if (!real.length) return new Map();
    const rows = await this.prisma.apiKey.findMany({ where: { id: { in: real } }, select: KEY_INFO_SELECT });
    return new Map(rows.map((row) => [row.id, row]));
  }

  /**
   * Rollup sums per bucket of [startMs, endMs), read consistently with Redis: see `consistent`.
   */
  series(
    filter: UsageFilter,
    granularity: UsageGranularity,
    startMs: number,
    endMs: number,
    readOpen: () => Promise<OpenRead>,
  ): Promise<ConsistentRead<{ ms: number; counts: UsageCounts }[]>> {
    return this.consistent(async (tx) => {
      const rows = await tx.$queryRaw<{ ms: bigint; valid: bigint; rateLimited: bigint; quotaExceeded: bigint; invalid: bigint }[]>`
        SELECT (extract(epoch FROM "bucketStart") * 1000)::bigint AS ms,
               sum(valid)::bigint AS valid, sum("rateLimited")::bigint AS "rateLimited",
               sum("quotaExceeded")::bigint AS "quotaExceeded", sum(invalid)::bigint AS invalid
        FROM "UsageRollup"
        WHERE granularity = ${granularity}::"Granularity" AND "bucketStart" >= ${ts(startMs)} AND "bucketStart" < ${ts(endMs)} ${filterSql(filter)}
        GROUP BY 1 ORDER BY 1`;
      return rows.map((row) => ({ ms: Number(row.ms), counts: toCounts(row) }));
    }, readOpen);
  }

  /**
   * The `limit` keys with the most decisions in [startMs, endMs) per the rollups, plus the rollup
   * sums of every key that has open counts in Redis (only those can still overtake them).
   */
  top(granularity: UsageGranularity, startMs: number, endMs: number, limit: number, readOpen: () => Promise<OpenRead>) {
    return this.consistent(
      async (tx) => {
        // Whole hours come from hour rows (written in the same transaction as their minutes, so
        // the sums agree) and only the partial first and last hour from minute rows: a 24 h top
        // reads ~25 k rows instead of ~430 k on a busy install.
        const midStart = Math.ceil(startMs / HOUR_MS) * HOUR_MS;
        const midEnd = Math.floor(endMs / HOUR_MS) * HOUR_MS;
        const where =
          granularity === 'minute' && midEnd - midStart >= 2 * HOUR_MS
            ? Prisma.sql`"keyId" <> '-' AND (
                (granularity = 'hour'::"Granularity" AND "bucketStart" >= ${ts(midStart)} AND "bucketStart" < ${ts(midEnd)})
                OR (granularity = 'minute'::"Granularity" AND (("bucketStart" >= ${ts(startMs)} AND "bucketStart" < ${ts(midStart)})
                                                            OR ("bucketStart" >= ${ts(midEnd)} AND "bucketStart" < ${ts(endMs)}))))`
            : Prisma.sql`granularity = ${granularity}::"Granularity" AND "bucketStart" >= ${ts(startMs)} AND "bucketStart" < ${ts(endMs)} AND "keyId" <> '-'`;
        const rows = await tx.$queryRaw<(TopRow & { total: bigint })[]>`
          SELECT "keyId", sum(valid)::bigint AS valid, sum("rateLimited")::bigint AS "rateLimited",
                 sum("quotaExceeded")::bigint AS "quotaExceeded", sum(invalid)::bigint AS invalid,
                 sum(valid + "rateLimited" + "quotaExceeded" + invalid)::bigint AS total
          FROM "UsageRollup" WHERE ${where}
          GROUP BY "keyId" ORDER BY total DESC, "keyId" LIMIT ${limit}`;
        return { where, rows: rows.map((row) => ({ keyId: row.keyId, ...toCounts(row) })) };
      },
      readOpen,
      async (tx, stored, open) => {
        const seen = new Set(stored.rows.map((row) => row.keyId));
        const extra = [...new Set(open.live.concat(open.snapshots).flatMap((bucket) => bucket.rows.map((row) => row.keyId)))].filter((id) => id !== '-' && !seen.has(id));
        if (!extra.length) return stored.rows;
        const more = await tx.$queryRaw<TopRow[]>`
          SELECT "keyId", sum(valid)::bigint AS valid, sum("rateLimited")::bigint AS "rateLimited",
                 sum("quotaExceeded")::bigint AS "quotaExceeded", sum(invalid)::bigint AS invalid
          FROM "UsageRollup" WHERE ${stored.where} AND "keyId" = ANY(${extra}::text[])
          GROUP BY "keyId"`;
        return stored.rows.concat(more.map((row) => ({ keyId: row.keyId, ...toCounts(row) })));
      },
    );
  }

  /**
   * Reads the rollups, then Redis, then which of the Redis snapshots Postgres had counted, all
   * on one REPEATABLE READ snapshot taken by the first statement (before the Redis read):
   * - a live hash read from Redis was not claimed yet, so Postgres cannot have counted it;
   * - a snapshot is counted by Postgres iff its UsageFlush marker is visible in that snapshot;
   * - a snapshot deleted from Redis before the Redis read was committed at least `graceMs`
   *   (60 s) before, so long before the Postgres snapshot: it is in `stored`.
   * So every count appears exactly once.
   */
  private async consistent<S, T = S>(
    first: (tx: Prisma.TransactionClient) => Promise<S>,
    readOpen: () => Promise<OpenRead>,
    then?: (tx: Prisma.TransactionClient, stored: S, open: OpenRead) => Promise<T>,
  ): Promise<ConsistentRead<T>> {
    return this.prisma.$transaction(
      async (tx) => {
        const initial = await first(tx);
        const open = await readOpen();
        const stored = then ? await then(tx, initial, open) : (initial as unknown as T);
        const ids = open.snapshots.map((snapshot) => snapshot.id);
        const flushed = ids.length ? await tx.usageFlush.findMany({ where: { bucketId: { in: ids } }, select: { bucketId: true } }) : [];
        const keyIds = [...new Set(open.live.concat(open.snapshots).flatMap((bucket) => bucket.rows.map((row) => row.keyId)))].filter((id) => id !== '-');
        const keys = keyIds.length ? await tx.apiKey.findMany({ where: { id: { in: keyIds } }, select: KEY_INFO_SELECT }) : [];
        return { stored, open, flushed: new Set(flushed.map((row) => row.bucketId)), keys: new Map(keys.map((key) => [key.id, key])) };
      },
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, timeout: 20_000, maxWait: 5_000 },
    );
  }
}

function toCounts(row: { valid: bigint | number | null; rateLimited: bigint | number | null; quotaExceeded: bigint | number | null; invalid: bigint | number | null }): UsageCounts {
  return { valid: Number(row.valid ?? 0), rateLimited: Number(row.rateLimited ?? 0), quotaExceeded: Number(row.quotaExceeded ?? 0), invalid: Number(row.invalid ?? 0) };
}

const GRANULARITY_ORDER = { minute: 0, hour: 1, day: 2 } as const;
type Granularity = keyof typeof GRANULARITY_ORDER;

interface RollupRow extends BucketRow {
  granularity: Granularity;
  startMs: number;
}

/** The minute, hour and day rows of some snapshots, summed per (keyId, granularity, bucketStart), in lock order. */
function aggregate(snapshots: readonly { minuteMs: number; rows: readonly BucketRow[] }[]): RollupRow[] {
  const byRow = new Map<string, RollupRow>();
  for (const snapshot of snapshots) {
    const starts: [Granularity, number][] = [
      ['minute', snapshot.minuteMs],
      ['hour', Math.floor(snapshot.minuteMs / HOUR_MS) * HOUR_MS],
      ['day', Math.floor(snapshot.minuteMs / DAY_MS) * DAY_MS],
    ];
    for (const row of snapshot.rows) {
      for (const [granularity, startMs] of starts) {
        const id = `${row.keyId}\u0000${granularity}\u0000${startMs}`;
        const existing = byRow.get(id);
        if (existing) addCounts(existing, row);
        else byRow.set(id, addCounts({ keyId: row.keyId, granularity, startMs, valid: 0, rateLimited: 0, quotaExceeded: 0, invalid: 0 }, row));
      }
    }
  }
  return [...byRow.values()].sort(
    (a, b) => (a.keyId < b.keyId ? -1 : a.keyId > b.keyId ? 1 : 0) || GRANULARITY_ORDER[a.granularity] - GRANULARITY_ORDER[b.granularity] || a.startMs - b.startMs,
  );
}

/** Rejections and admissions per (key, minute) of the applied snapshots (a minute may come in several parts); unknown secrets (`-`) raise no event. */
function rateLimitedMinutes(snapshots: readonly { minuteMs: number; rows: readonly BucketRow[] }[]): RateLimitedMinute[] {
  const byMinute = new Map<string, RateLimitedMinute>();
  for (const snapshot of snapshots) {
    for (const row of snapshot.rows) {
      if (row.rateLimited === 0 || row.keyId === '-') continue;
      const id = `${row.keyId}\u0000${snapshot.minuteMs}`;
      const existing = byMinute.get(id);
      if (existing) {
        existing.rejected += row.rateLimited;
        existing.admitted += row.valid;
      } else {
        byMinute.set(id, { keyId: row.keyId, minuteMs: snapshot.minuteMs, rejected: row.rateLimited, admitted: row.valid });
      }
    }
  }
  return [...byMinute.values()];
}

/** One multi-row upsert (unnest of column arrays) into the rollups; owner and plan come from ApiKey in the same statement. */
function upsertRollups(rows: readonly RollupRow[]): Prisma.Sql {
  const keyIds = rows.map((row) => row.keyId);
  const granularities = rows.map((row) => row.granularity);
  const starts = rows.map((row) => row.startMs);
  const valid = rows.map((row) => row.valid);
  const rateLimited = rows.map((row) => row.rateLimited);
  const quotaExceeded = rows.map((row) => row.quotaExceeded);
  const invalid = rows.map((row) => row.invalid);
  return Prisma.sql`
    INSERT INTO "UsageRollup" ("keyId", "ownerId", "planId", granularity, "bucketStart", valid, "rateLimited", "quotaExceeded", invalid, "updatedAt")
    SELECT i."keyId", k."ownerId", k."planId", i.granularity::"Granularity", 'epoch'::timestamp + i.ms * interval '1 millisecond',
           i.valid, i."rateLimited", i."quotaExceeded", i.invalid, now()
    FROM unnest(${keyIds}::text[], ${granularities}::text[], ${starts}::bigint[], ${valid}::bigint[], ${rateLimited}::bigint[], ${quotaExceeded}::bigint[], ${invalid}::bigint[])
           WITH ORDINALITY AS i("keyId", granularity, ms, valid, "rateLimited", "quotaExceeded", invalid, n)
    LEFT JOIN "ApiKey" k ON k.id = i."keyId"
    ORDER BY i.n
    ON CONFLICT ("keyId", granularity, "bucketStart") DO UPDATE SET
      valid = "UsageRollup".valid + EXCLUDED.valid,
      "rateLimited" = "UsageRollup"."rateLimited" + EXCLUDED."rateLimited",
      "quotaExceeded" = "UsageRollup"."quotaExceeded" + EXCLUDED."quotaExceeded",
      invalid = "UsageRollup".invalid + EXCLUDED.invalid,
      "ownerId" = EXCLUDED."ownerId",
      "planId" = EXCLUDED."planId",
      "updatedAt" = now()`;
}
