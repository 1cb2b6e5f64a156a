import { Injectable } from '@nestjs/common';
import { Prisma } from '@prisma/client';
import type { UsageCounts, UsageGranularity } from '@tollgate/contracts';
import { PrismaService } from '../infra/prisma.service';
import { queueRateLimitExceeded, type RateLimitedMinute } from '../webhooks/webhooks.repository';
import { HOUR_MS } from './usage-range';
import { arrayLiteral, HourDayRollup, integerText, minuteChunks, ROLLUP_GRANULARITIES, type RollupChunk, type SnapshotRows } from './usage-rollup-batch';
import type { BucketRow, OpenRead, Snapshot } from './usage-store';

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

/** Snapshots to count in one transaction, and how to get each one's rows. */
export interface FlushBatch {
  snapshots: readonly Snapshot[];
  /** The rows of `snapshots[i]`: the same ones every time (a retried transaction asks again). */
  rows(i: number): Promise<readonly BucketRow[]>;
}

/**
 * A flush commits each snapshot in two parts (UsageRepository.flushBuckets): its minute rows, and
 * its hour and day rows. Each part has its own UsageFlush marker.
 */
export type FlushPart = 'minute' | 'hourDay';

const PART_SUFFIX: Record<FlushPart, string> = { minute: '#m', hourDay: '#hd' };

/** The UsageFlush marker of one part of a snapshot. */
export function partMarker(snapshotId: string, part: FlushPart): string {
  return snapshotId + PART_SUFFIX[part];
}

function idOfMarker(marker: string): string {
  return marker.slice(0, marker.lastIndexOf('#'));
}

export interface TopRow extends UsageCounts {
  keyId: string;
}

/** Rollup rows per statement of a flush; a transaction has several (one or more per minute, then hour/day). */
const ROWS_PER_STATEMENT = 20_000;
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
   * Counts one part of a batch of snapshots into the rollups, each exactly once: the part's
   * UsageFlush markers and its rollup changes commit together, and a snapshot whose marker for the
   * part already exists (a crashed or concurrent flusher committed it) contributes nothing to it.
   * Returns the ids of the snapshots whose part this call applied.
   *
   * The two parts of a snapshot are separate transactions, which the flusher runs at the same time
   * on two connections: Postgres is the bottleneck and one transaction is one backend on one core,
   * so the minute rows and the hour/day rows go to two (they touch different partitions, so they
   * neither wait for nor deadlock with each other). A snapshot leaves Redis only after both parts
   * committed; readers look for the marker of the part that covers the rows they read.
   *
   * - 'minute': the minute rows, one minute (all its parts) at a time in key order, each statement
   *   sent as soon as its minute has been read, so Postgres writes a minute while the next one is
   *   read from Redis and parsed. The same transaction queues `ratelimit.exceeded` for every (key,
   *   minute) with rejections among the applied snapshots (see queueRateLimitExceeded): the event
   *   commits with the counts it reports, so neither a crash nor a failed insert can lose it, and a
   *   retry cannot repeat it.
   * - 'hourDay': the hour and day rows, summed over the batch (N minutes of one hour cost one hour
   *   row per key), in (granularity, bucketStart, keyId) order.
   *
   * Every count adds to its rows (a minute claimed in two parts, after a late decision, adds up
   * too). Each part locks rows in one global order ((granularity, bucketStart, keyId)), so two
   * flushers sharing rows wait for each other instead of deadlocking; a deadlock or lost
   * connection is retried all the same.
   */
  async flushBuckets(batch: FlushBatch, part: FlushPart): Promise<Set<string>> {
    if (!batch.snapshots.length) return new Set();
    if (part === 'hourDay') return withRetry(() => this.flushTransaction(batch, part, 'upsert'));
    try {
      return await withRetry(() => this.flushTransaction(batch, part, 'insert'));
    } catch (error) {
      if (!isRollupKeyConflict(error)) throw error;
      return withRetry(() => this.flushTransaction(batch, part, 'upsert'));
    }
  }

  /**
   * `minuteRows`: a minute row exists before its snapshot commits only when an earlier part of
   * that minute (decisions that reached Redis after its claim) was committed. So minute rows are
   * first written as plain INSERTs, about 25 % cheaper in Postgres than an upsert (no conflict
   * check, no speculative insertion), and the rare transaction that meets such a row is rolled back
   * and run again with upserts ('upsert'). Hour and day rows are always upserts.
   */
  private flushTransaction(batch: FlushBatch, part: FlushPart, minuteRows: 'insert' | 'upsert'): Promise<Set<string>> {
    const { snapshots } = batch;
    const ids = snapshots.map((snapshot) => snapshot.id);
    const markers = ids.map((id) => partMarker(id, part));
    const order = snapshots.map((_, i) => i).sort((a, b) => snapshots[a].minuteMs - snapshots[b].minuteMs);
    return this.prisma.$transaction(
      async (tx) => {
        // No JIT-compiling an upsert (hundreds of ms), no sort or hash spilled to disk. Each row's
        // owner and plan come from a join with ApiKey that the planner sizes from the statement's
        // arrays (it sees their length): a hash join over a seq scan when a statement covers a good
        // part of the keys, an index lookup per row when the table is much larger (random_page_cost
        // 1.1, as for cached or SSD-backed tables; at the default 4 it would seq-scan 400 000 keys
        // for 10 000 rows). In psql, 10 000 rows against 10 000 keys: ~2 us less per row hash-joined.
        await tx.$queryRaw`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true), set_config('random_page_cost', '1.1', true)`;
        // A marker named by the bare snapshot id was written by a flusher from before the parts, for
        // the whole snapshot: no part of it is applied again.
        const marked = await tx.$queryRaw<{ id: string }[]>`
          INSERT INTO "UsageFlush" ("bucketId")
          SELECT t.marker FROM unnest(${markers}::text[], ${ids}::text[]) AS t(marker, id)
          WHERE NOT EXISTS (SELECT 1 FROM "UsageFlush" whole WHERE whole."bucketId" = t.id)
          ON CONFLICT DO NOTHING RETURNING "bucketId" AS id`;
        const applied = new Set(marked.map((row) => idOfMarker(row.id)));
        const appliedRows: SnapshotRows[] = [];
        const hourDay = new HourDayRollup();
        // Postgres is the bottleneck, so it should not wait for Node between statements: each one is
        // handed to the driver (which queues it on the transaction's connection) while the one
        // before still runs, and Node reads, parses and encodes the next while this one runs.
        let inFlight: Promise<unknown> = Promise.resolve();
        const send = async (statement: Prisma.Sql) => {
          const previous = inFlight;
          inFlight = started(tx.$executeRaw(statement));
          await previous;
        };
        try {
          for (let at = 0; at < order.length; ) {
            const minuteMs = snapshots[order[at]].minuteMs;
            const parts: (readonly BucketRow[])[] = [];
            for (; at < order.length && snapshots[order[at]].minuteMs === minuteMs; at++) {
              const snapshot = snapshots[order[at]];
              if (!applied.has(snapshot.id)) continue;
              const rows = await batch.rows(order[at]);
              if (part === 'hourDay') {
                hourDay.add(minuteMs, rows);
                continue;
              }
              appliedRows.push({ id: snapshot.id, minuteMs, rows });
              parts.push(rows);
            }
            if (parts.length) for (const chunk of minuteChunks(minuteMs, parts, ROWS_PER_STATEMENT)) await send(writeRollups(chunk, minuteRows === 'upsert'));
          }
          for (const chunk of hourDay.chunks(ROWS_PER_STATEMENT)) await send(writeRollups(chunk, true));
        } finally {
          // Never leave a statement running behind a failure (the rollback would queue behind it).
          await inFlight.catch(() => undefined);
        }
        await inFlight;
        if (part === 'minute') await queueRateLimitExceeded(tx, rateLimitedMinutes(appliedRows));
        return applied;
      },
      { timeout: 120_000, maxWait: 10_000 },
    );
  }

  /**
   * Raises each key's lastUsedAt (ApiKeyActivity) to the given time, never lowering it; one
   * statement per batch. Rows go in key order, so two flushers touching overlapping keys lock them
   * in the same order and cannot deadlock; ids that are no key (deleted since) are skipped by the
   * join, not refused by the foreign key.
   */
  async touchLastUsed(lastUsed: ReadonlyMap<string, number>): Promise<void> {
    if (!lastUsed.size) return;
    const ids = [...lastUsed.keys()].sort();
    const times = ids.map((id) => lastUsed.get(id)!);
    await withRetry(
      () => this.prisma.$executeRaw`
        INSERT INTO "ApiKeyActivity" ("keyId", "lastUsedAt")
        SELECT t.id, 'epoch'::timestamp + t.ms * interval '1 millisecond'
        FROM unnest(${arrayLiteral(ids)}::text[], ${arrayLiteral(times)}::bigint[]) WITH ORDINALITY AS t(id, ms, n)
        JOIN "ApiKey" k ON k.id = t.id
        ORDER BY t.n
        ON CONFLICT ("keyId") DO UPDATE SET "lastUsedAt" = EXCLUDED."lastUsedAt"
        WHERE "ApiKeyActivity"."lastUsedAt" < EXCLUDED."lastUsedAt"`,
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
    }, readOpen, undefined, () => (granularity === 'minute' ? 'minute' : 'hourDay'));
  }

  /**
   * The `limit` keys with the most decisions in [startMs, endMs) per the rollups, plus the rollup
   * sums of every key that has open counts in Redis (only those can still overtake them).
   */
  top(granularity: UsageGranularity, startMs: number, endMs: number, limit: number, readOpen: () => Promise<OpenRead>) {
    // Whole hours come from hour rows and only the partial first and last hour from minute rows: a
    // 24 h top reads ~25 k rows instead of ~430 k on a busy install. A snapshot's counts are in
    // the hour rows once its hourDay part is committed, in the minute rows once its minute part is.
    const midStart = Math.ceil(startMs / HOUR_MS) * HOUR_MS;
    const midEnd = Math.floor(endMs / HOUR_MS) * HOUR_MS;
    const hoursInMiddle = granularity === 'minute' && midEnd - midStart >= 2 * HOUR_MS;
    const partFor = (minuteMs: number): FlushPart =>
      granularity !== 'minute' || (hoursInMiddle && minuteMs >= midStart && minuteMs < midEnd) ? 'hourDay' : 'minute';
    return this.consistent(
      async (tx) => {
        const where =
          hoursInMiddle
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
      partFor,
    );
  }

  /**
   * Reads the rollups, then Redis, then which of the Redis snapshots Postgres had counted, all
   * on one REPEATABLE READ snapshot taken by the first statement (before the Redis read):
   * - a live hash read from Redis was not claimed yet, so Postgres cannot have counted it;
   * - a snapshot is counted in the rows read iff the UsageFlush marker of the part that writes
   *   them (`partFor` its minute) is visible in that snapshot (or the bare-id marker of a flusher
   *   from before the parts, which stands for both);
   * - a snapshot deleted from Redis before the Redis read was committed at least `graceMs`
   *   (60 s) before, so long before the Postgres snapshot: it is in `stored`.
   * So every count appears exactly once.
   */
  private async consistent<S, T = S>(
    first: (tx: Prisma.TransactionClient) => Promise<S>,
    readOpen: () => Promise<OpenRead>,
    then: ((tx: Prisma.TransactionClient, stored: S, open: OpenRead) => Promise<T>) | undefined,
    partFor: (minuteMs: number) => FlushPart,
  ): Promise<ConsistentRead<T>> {
    return this.prisma.$transaction(
      async (tx) => {
        const initial = await first(tx);
        const open = await readOpen();
        const stored = then ? await then(tx, initial, open) : (initial as unknown as T);
        const markerOf = (snapshot: { id: string; minuteMs: number }) => partMarker(snapshot.id, partFor(snapshot.minuteMs));
        const ids = open.snapshots.flatMap((snapshot) => [snapshot.id, markerOf(snapshot)]);
        const visible = ids.length ? await tx.usageFlush.findMany({ where: { bucketId: { in: ids } }, select: { bucketId: true } }) : [];
        const markers = new Set(visible.map((row) => row.bucketId));
        const flushed = open.snapshots.filter((snapshot) => markers.has(snapshot.id) || markers.has(markerOf(snapshot)));
        const keyIds = [...new Set(open.live.concat(open.snapshots).flatMap((bucket) => bucket.rows.map((row) => row.keyId)))].filter((id) => id !== '-');
        const keys = keyIds.length ? await tx.apiKey.findMany({ where: { id: { in: keyIds } }, select: KEY_INFO_SELECT }) : [];
        return { stored, open, flushed: new Set(flushed.map((snapshot) => snapshot.id)), keys: new Map(keys.map((key) => [key.id, key])) };
      },
      { isolationLevel: Prisma.TransactionIsolationLevel.RepeatableRead, timeout: 20_000, maxWait: 5_000 },
    );
  }
}

function toCounts(row: { valid: bigint | number | null; rateLimited: bigint | number | null; quotaExceeded: bigint | number | null; invalid: bigint | number | null }): UsageCounts {
  return { valid: Number(row.valid ?? 0), rateLimited: Number(row.rateLimited ?? 0), quotaExceeded: Number(row.quotaExceeded ?? 0), invalid: Number(row.invalid ?? 0) };
}

/** Rejections and admissions per (key, minute) of the applied snapshots (a minute may come in several parts); unknown secrets (`-`) raise no event. */
function rateLimitedMinutes(snapshots: readonly SnapshotRows[]): RateLimitedMinute[] {
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

/** Starts a Prisma query now (they are lazy until awaited), so Node can prepare the next one meanwhile. */
function started<T>(query: PromiseLike<T>): Promise<T> {
  const promise = Promise.resolve(query);
  // Awaited by the caller; this only keeps a failure meanwhile from counting as unhandled.
  promise.catch(() => undefined);
  return promise;
}

/**
 * One multi-row write of a chunk, its columns sent as array literals (see arrayLiteral), owner
 * and plan read from ApiKey in the same statement. The shape is chosen for cost and order: the
 * unnest()s in the select list stream the rows in array order (a multi-array unnest in FROM
 * materialises them first), and the LIMIT keeps the key lookup a lateral index probe per row (a
 * nested loop, which keeps that order: the chunk's order is the lock order) rather than a hash
 * join over all of ApiKey plus a sort. About 25 % cheaper in Postgres than unnest() WITH
 * ORDINALITY joined to ApiKey and sorted back.
 */
function writeRollups(chunk: RollupChunk, upsert: boolean): Prisma.Sql {
  return Prisma.sql`
    INSERT INTO "UsageRollup" ("keyId", "ownerId", "planId", granularity, "bucketStart", valid, "rateLimited", "quotaExceeded", invalid, "updatedAt")
    SELECT r."keyId", k."ownerId", k."planId", (${arrayLiteral(ROLLUP_GRANULARITIES)}::"Granularity"[])[r.g], 'epoch'::timestamp + r.ms * interval '1 millisecond',
           r.valid, r."rateLimited", r."quotaExceeded", r.invalid, now()
    FROM (SELECT unnest(${arrayLiteral(chunk.keyId)}::text[]) AS "keyId", ${perRow(chunk.granularity, 'int')} AS g, ${perRow(chunk.startMs, 'bigint')} AS ms,
                 unnest(${arrayLiteral(chunk.valid)}::bigint[]) AS valid, unnest(${arrayLiteral(chunk.rateLimited)}::bigint[]) AS "rateLimited",
                 unnest(${arrayLiteral(chunk.quotaExceeded)}::bigint[]) AS "quotaExceeded", unnest(${arrayLiteral(chunk.invalid)}::bigint[]) AS invalid) r
    LEFT JOIN "ApiKey" k ON k.id = r."keyId"
    ${upsert ? ON_CONFLICT_ADD : Prisma.empty}`;
}

/** A column of a chunk: one value for every row, or an array unnested beside the others. */
function perRow(values: number | readonly number[], type: 'int' | 'bigint'): Prisma.Sql {
  const cast = Prisma.raw(type);
  return typeof values === 'number' ? Prisma.sql`${integerText(values)}::${cast}` : Prisma.sql`unnest(${arrayLiteral(values)}::${cast}[])`;
}

const ON_CONFLICT_ADD = Prisma.sql`
    ON CONFLICT ("keyId", granularity, "bucketStart") DO UPDATE SET
      valid = "UsageRollup".valid + EXCLUDED.valid,
      "rateLimited" = "UsageRollup"."rateLimited" + EXCLUDED."rateLimited",
      "quotaExceeded" = "UsageRollup"."quotaExceeded" + EXCLUDED."quotaExceeded",
      invalid = "UsageRollup".invalid + EXCLUDED.invalid,
      "ownerId" = EXCLUDED."ownerId",
      "planId" = EXCLUDED."planId",
      "updatedAt" = now()`;

/**
 * A plain INSERT of minute rows met an existing row (see flushTransaction). UsageRollup is
 * partitioned by granularity, so Postgres names the partition's primary key ("UsageRollup_minute_pkey").
 */
function isRollupKeyConflict(error: unknown): boolean {
  const cause = (error as { meta?: { driverAdapterError?: { cause?: { originalCode?: string; constraint?: { index?: string } } } } })?.meta?.driverAdapterError?.cause;
  return cause?.originalCode === '23505' && /^UsageRollup(_minute|_hour|_day)?_pkey$/.test(cause.constraint?.index ?? '');
}
