import { Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { totalOf } from './usage-counts';
import { DEFAULT_RETENTION, HOUR_MS, type UsageRetention } from './usage-range';
import type { FlushBatch, FlushPart, UsageRepository } from './usage.repository';
import { UsageStore, type BucketRow, type Snapshot, type UsageRedis } from './usage-store';

export interface UsageFlusherOptions {
  /** Pause between runs (USAGE_FLUSH_MS). Runs never overlap: the next is scheduled after one ends. */
  intervalMs: number;
  /** A minute is claimed once Redis time is past its end by this much (clock jitter between instances). Default 2 s. */
  safetyMarginMs?: number;
  /** A snapshot pending this long (its flusher died mid-flush) is taken over. Default max(30 s, 3 x interval). */
  staleClaimMs?: number;
  /** A committed snapshot stays readable in Redis this long (readers' consistency window). Default 60 s, minimum 60 s. */
  graceMs?: number;
  /** At most this many minute buckets per run. Default 500. */
  maxBucketsPerRun?: number;
  /**
   * Bucket fields (about one per key and outcome) per Postgres transaction; a larger bucket gets
   * one of its own. Default 200 000: the minutes of a backlog share their hour and day rows only
   * within one transaction (five minutes of 10 000 keys: 70 000 rollup rows in one, 150 000 in five).
   */
  maxFieldsPerTransaction?: number;
  /** Rollup retention (the API passes USAGE_RETENTION_MINUTE_DAYS / _HOUR_DAYS); default DEFAULT_RETENTION. */
  retention?: Partial<UsageRetention>;
  /** Retention prune period. Default 1 h (the first prune runs with the first flush); 0 turns the automatic prune off. */
  pruneEveryMs?: number;
  /** Fault injection for crash tests: throwing aborts the run at that point, like a kill would. */
  faults?: {
    beforeCommit?: (snapshots: readonly Snapshot[]) => void | Promise<void>;
    afterCommit?: (snapshots: readonly Snapshot[]) => void | Promise<void>;
    /** Before one part's transaction (the parts run at the same time): throwing fails that part only. */
    beforePart?: (part: FlushPart, snapshots: readonly Snapshot[]) => void | Promise<void>;
  };
}

export interface FlushStats {
  /** Snapshots committed into the rollups by this run. */
  committed: number;
  /** Snapshots found already committed (crash recovery, or a concurrent flusher won). */
  skipped: number;
  /** Decisions (counts) this run added to the rollups. */
  decisions: number;
  /** Distinct (bucket, key) minute rows written (each also counted into an hour and a day row). */
  rows: number;
}

/**
 * Moves closed minute buckets from Redis into the Postgres rollups, exactly once per count:
 *
 * 1. claim: an atomic Lua step RENAMEs each closed live bucket to a snapshot key with a fresh
 *    unique id and records it as pending (an immutable copy: late writes start a new live hash);
 * 2. commit, in two parts at the same time, each one Postgres transaction: one inserts the
 *    minute-part `UsageFlush` markers of a batch of snapshots and adds the counts of those whose
 *    marker was new to the minute rows; the other does the same with hour/day-part markers and the
 *    hour and day rows. A snapshot whose marker for a part already existed adds nothing to it. The
 *    snapshots are read from Redis as the minute part goes, each while Postgres writes the minute
 *    before it (see UsageRepository.flushBuckets);
 * 3. release: only after both parts committed, the snapshot leaves the pending set and expires
 *    after a grace.
 *
 * A crash before 2 leaves a pending snapshot that any flusher takes over once stale; a crash
 * during 2 or between 2 and 3 leaves one whose markers exist for the committed parts, so the
 * takeover applies only the missing part, if any. Two flushers claiming the same minute: the
 * RENAME happens once. Two flushers committing the same part of a snapshot: the marker's primary
 * key serialises them and the second does nothing.
 */
export class UsageFlusher implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('UsageFlusher');
  private readonly store: UsageStore;
  private readonly options: Required<Omit<UsageFlusherOptions, 'faults' | 'retention'>> & { retention: UsageRetention };
  faults: NonNullable<UsageFlusherOptions['faults']>;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<FlushStats> | undefined;
  private started = false;
  private lastPruneAt = -Infinity;

  constructor(
    private readonly repository: UsageRepository,
    redis: UsageRedis,
    options: UsageFlusherOptions,
  ) {
    this.store = new UsageStore(redis);
    this.options = {
      intervalMs: options.intervalMs,
      safetyMarginMs: options.safetyMarginMs ?? 2000,
      staleClaimMs: options.staleClaimMs ?? Math.max(30_000, 3 * options.intervalMs),
      graceMs: Math.max(60_000, options.graceMs ?? 60_000),
      maxBucketsPerRun: options.maxBucketsPerRun ?? 500,
      maxFieldsPerTransaction: options.maxFieldsPerTransaction ?? 200_000,
      pruneEveryMs: options.pruneEveryMs ?? HOUR_MS,
      retention: { ...DEFAULT_RETENTION, ...options.retention },
    };
    this.faults = options.faults ?? {};
  }

  onModuleInit(): void {
    this.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  /** Starts the periodic runs (the first one right away). Idempotent. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Stops scheduling and waits for an in-flight run to finish: no run outlives this. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    if (!this.started) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.runOnce()
        .catch((error: unknown) => this.logger.warn(`usage flush failed (will retry): ${error instanceof Error ? error.message : String(error)}`))
        .finally(() => this.schedule(this.options.intervalMs));
    }, delayMs);
    this.timer.unref();
  }

  /** One flush now; if a run is in flight, waits for it instead of overlapping. */
  runOnce(): Promise<FlushStats> {
    this.running ??= this.flush().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async flush(): Promise<FlushStats> {
    const stats: FlushStats = { committed: 0, skipped: 0, decisions: 0, rows: 0 };
    const nowMs = await this.store.nowMs();
    const max = this.options.maxBucketsPerRun;
    const stale = await this.store.stalePending(nowMs - this.options.staleClaimMs, max);
    const closed = await this.store.closedMinutes(nowMs - this.options.safetyMarginMs, max);
    const claimed = await this.store.claim(closed, nowMs);
    // In minute order: the hour/day sums of a transaction need its minutes ascending.
    const snapshots = [...stale, ...claimed].sort((a, b) => a.minuteMs - b.minuteMs);
    const fields = await this.store.fieldCounts(snapshots);
    const touches: Promise<void>[] = [];
    try {
      let batch: Snapshot[] = [];
      let batchFields = 0;
      for (let i = 0; i < snapshots.length; i++) {
        if (fields[i] === 0) {
          await this.store.forget(snapshots[i]);
          continue;
        }
        if (batch.length && batchFields + fields[i] > this.options.maxFieldsPerTransaction) {
          await this.commit(batch, stats, touches);
          batch = [];
          batchFields = 0;
        }
        batch.push(snapshots[i]);
        batchFields += fields[i];
      }
      if (batch.length) await this.commit(batch, stats, touches);
    } finally {
      // No statement outlives its run (stop() waits for the run), failed or not.
      await Promise.allSettled(touches);
    }
    await Promise.all(touches);
    await this.store.sweepSnapshots();
    if (this.options.pruneEveryMs > 0 && nowMs - this.lastPruneAt >= this.options.pruneEveryMs) {
      this.lastPruneAt = nowMs;
      await this.prune(nowMs);
    }
    if (stats.committed) this.logger.debug(`flushed ${stats.committed} usage bucket(s), ${stats.decisions} decisions`);
    return stats;
  }

  /**
   * The two parts of a batch of snapshots (minute rows; hour and day rows), each its own
   * transaction, at the same time on two connections; then, once both committed, their release in
   * Redis. A part that fails leaves the snapshots pending: a later run applies the missing part
   * only (the other's markers exist).
   */
  private async commit(batch: readonly Snapshot[], stats: FlushStats, touches: Promise<void>[]): Promise<void> {
    const reads: Promise<readonly BucketRow[]>[] = [];
    const read = (i: number) => (reads[i] ??= quiet(this.store.readSnapshot(batch[i])));
    // lastUsedAt is advisory and outside the rollup transactions, so it runs beside them on another
    // connection, from the moment the last snapshot is asked for. It counts every snapshot, applied
    // or not: a decision is a use either way, and raising lastUsedAt twice is harmless.
    let touch: Promise<void> | undefined;
    const touchLastUsed = () => (touch ??= Promise.all(batch.map((_, i) => read(i))).then((rows) => this.repository.touchLastUsed(lastUsedOf(batch, rows))));
    await this.faults.beforeCommit?.(batch);
    const flushPart = async (part: FlushPart, rows: FlushBatch['rows']) => {
      await this.faults.beforePart?.(part, batch);
      return this.repository.flushBuckets({ snapshots: batch, rows }, part);
    };
    const parts = await Promise.allSettled([
      flushPart(
        'minute',
        // Read one ahead: Redis sends and Node parses a snapshot while Postgres writes the one before.
        (i) => {
          if (i + 1 < batch.length) read(i + 1);
          else touchLastUsed();
          return read(i);
        },
      ),
      // Its rows are summed over the whole batch, so it writes once the minute part has read them all.
      flushPart('hourDay', read),
    ]);
    const failed = parts.find((part): part is PromiseRejectedResult => part.status === 'rejected');
    if (failed) {
      if (touch) touches.push(touch);
      throw failed.reason;
    }
    const [minuteApplied, hourDayApplied] = parts.map((part) => (part as PromiseFulfilledResult<Set<string>>).value);
    touches.push(touchLastUsed());
    await this.faults.afterCommit?.(batch);
    await this.store.markDone(batch, this.options.graceMs);
    for (let i = 0; i < batch.length; i++) {
      const { id } = batch[i];
      if (!minuteApplied.has(id) && !hourDayApplied.has(id)) {
        stats.skipped++;
        continue;
      }
      stats.committed++;
      // Decisions and rows are counted with the minute part (a run that only completed the
      // hour/day part recovered a snapshot whose minute rows were already in).
      if (!minuteApplied.has(id)) continue;
      const rows = await read(i);
      stats.rows += rows.length;
      stats.decisions += totalOf(rows);
    }
  }

  /** Deletes rollups past retention (by default minute 7 d, hour 90 d; day rows stay) and old flush markers. */
  prune(nowMs = Date.now()) {
    const retention = this.options.retention;
    return this.repository.prune({
      minuteBefore: nowMs - retention.minuteMs,
      hourBefore: nowMs - retention.hourMs,
      flushMarkerBefore: nowMs - retention.flushMarkerMs,
    });
  }
}

/** The promise, with a failure marked as handled: whoever needs the value awaits it and sees the error. */
function quiet<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * lastUsedAt = start of the latest minute bucket in which the key got an authenticated decision
 * (valid, rate-limited or over quota; `invalid` is not a use).
 */
function lastUsedOf(snapshots: readonly Snapshot[], contents: readonly (readonly BucketRow[])[]): Map<string, number> {
  const lastUsed = new Map<string, number>();
  for (let i = 0; i < snapshots.length; i++) {
    const usedAt = snapshots[i].minuteMs;
    for (const row of contents[i]) {
      if (row.keyId === '-' || row.valid + row.rateLimited + row.quotaExceeded === 0) continue;
      if ((lastUsed.get(row.keyId) ?? 0) < usedAt) lastUsed.set(row.keyId, usedAt);
    }
  }
  return lastUsed;
}
