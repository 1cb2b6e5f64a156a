import { Inject, Injectable } from '@nestjs/common';
import {
  USAGE_CSV_HEADER,
  USAGE_STEP_MS,
  type UsageCounts,
  type UsageQuerySchema,
  type UsageSeries,
  type UsageStreamQuerySchema,
  type UsageTop,
  type UsageTopQuerySchema,
} from '@tollgate/contracts';
import type { z } from 'zod';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';
import { addCounts, emptyCounts, totalOf } from './usage-counts';
import { floorTo, MINUTE_MS, resolveRange, retentionFromEnv, TOP_RULES, type UsageRetention } from './usage-range';
import { UsageRepository, type KeyInfo, type UsageFilter } from './usage.repository';
import { UsageStore, type OpenRead } from './usage-store';

const KEY_SET_REFRESH_MS = 10_000;

function matches(filter: UsageFilter, keyId: string, keys: Map<string, KeyInfo>): boolean {
  if (filter.keyId !== undefined) return keyId === filter.keyId;
  if (filter.ownerId !== undefined) return keys.get(keyId)?.ownerId === filter.ownerId;
  if (filter.planId !== undefined) return keys.get(keyId)?.planId === filter.planId;
  return true;
}

/**
 * The Redis buckets Postgres had not counted at read time, per minute: every live hash, and the
 * snapshots without a visible UsageFlush marker (see UsageRepository.consistent).
 */
function uncounted(open: OpenRead, flushed: Set<string>) {
  return [...open.live, ...open.snapshots.filter((snapshot) => !flushed.has(snapshot.id))];
}

export interface StreamFilter {
  accepts(keyId: string): boolean;
}

@Injectable()
export class UsageService {
  /** USAGE_RETENTION_*: which granularity still has rows for a range's start. */
  private readonly retention: UsageRetention;

  constructor(
    private readonly repository: UsageRepository,
    private readonly store: UsageStore,
    @Inject(ENV) env: Env,
  ) {
    this.retention = retentionFromEnv(env);
  }

  /** GET /v1/usage: zero-filled buckets of the rollups plus whatever Redis has not flushed yet. */
  async series(query: z.output<typeof UsageQuerySchema>, nowMs = Date.now()): Promise<UsageSeries> {
    const range = resolveRange(query, nowMs, this.retention);
    const filter: UsageFilter = { keyId: query.keyId, ownerId: query.ownerId, planId: query.planId };
    const step = USAGE_STEP_MS[range.granularity];
    const read = await this.repository.series(filter, range.granularity, range.startMs, range.endMs, () =>
      this.store.readOpen(range.startMs, range.endMs - MINUTE_MS),
    );
    const buckets = new Map<number, UsageCounts>();
    for (let ms = range.startMs; ms < range.endMs; ms += step) buckets.set(ms, emptyCounts());
    for (const row of read.stored) {
      const bucket = buckets.get(row.ms);
      if (bucket) addCounts(bucket, row.counts);
    }
    for (const open of uncounted(read.open, read.flushed)) {
      const bucket = buckets.get(floorTo(open.minuteMs, range.granularity));
      if (!bucket) continue;
      for (const row of open.rows) if (matches(filter, row.keyId, read.keys)) addCounts(bucket, row);
    }
    const totals = emptyCounts();
    const series = [...buckets].map(([ms, counts]) => {
      addCounts(totals, counts);
      return { ts: new Date(ms).toISOString(), ...counts };
    });
    return { granularity: range.granularity, from: new Date(range.startMs).toISOString(), to: new Date(range.endMs).toISOString(), series, totals };
  }

  /** GET /v1/usage/export.csv: the same series, one line per bucket. */
  async csv(query: z.output<typeof UsageQuerySchema>): Promise<string> {
    const { series } = await this.series(query);
    const lines = [USAGE_CSV_HEADER];
    for (const point of series) lines.push(`${point.ts},${point.valid},${point.rateLimited},${point.quotaExceeded},${point.invalid}`);
    return `${lines.join('\n')}\n`;
  }

  /** GET /v1/usage/top: keys by total decisions in the range (rollups + open buckets), bucket-aligned. */
  async top(query: z.output<typeof UsageTopQuerySchema>, nowMs = Date.now()): Promise<UsageTop> {
    const { granularity, startMs, endMs } = resolveRange(query, nowMs, this.retention, TOP_RULES);
    const read = await this.repository.top(granularity, startMs, endMs, query.limit, () => this.store.readOpen(startMs, endMs - MINUTE_MS));
    const byKey = new Map<string, UsageCounts>();
    for (const row of read.stored) byKey.set(row.keyId, addCounts(emptyCounts(), row));
    for (const open of uncounted(read.open, read.flushed)) {
      for (const row of open.rows) {
        if (row.keyId === '-') continue;
        let counts = byKey.get(row.keyId);
        if (!counts) byKey.set(row.keyId, (counts = emptyCounts()));
        addCounts(counts, row);
      }
    }
    const ranked = [...byKey]
      .map(([keyId, counts]) => ({ keyId, ...counts, total: totalOf(counts) }))
      .sort((a, b) => b.total - a.total || (a.keyId < b.keyId ? -1 : 1))
      .slice(0, query.limit);
    const names = await this.repository.keyInfo(ranked.map((item) => item.keyId));
    return {
      from: new Date(startMs).toISOString(),
      to: new Date(endMs).toISOString(),
      items: ranked.map((item) => ({ keyId: item.keyId, name: names.get(item.keyId)?.name ?? null, valid: item.valid, rateLimited: item.rateLimited, quotaExceeded: item.quotaExceeded, invalid: item.invalid, total: item.total })),
    };
  }

  /** Which key ids a stream counts; an owner's or plan's key set is re-read every 10 s. */
  async streamFilter(query: z.output<typeof UsageStreamQuerySchema>): Promise<StreamFilter> {
    if (query.keyId !== undefined) {
      const keyId = query.keyId;
      return { accepts: (id) => id === keyId };
    }
    if (query.ownerId === undefined && query.planId === undefined) return { accepts: () => true };
    const scope = { ownerId: query.ownerId, planId: query.planId };
    let ids = new Set(await this.repository.keyIdsFor(scope));
    let loadedAt = Date.now();
    let loading = false;
    return {
      accepts: (id) => {
        if (!loading && Date.now() - loadedAt > KEY_SET_REFRESH_MS) {
          loading = true;
          this.repository
            .keyIdsFor(scope)
            .then((fresh) => {
              ids = new Set(fresh);
              loadedAt = Date.now();
            })
            .catch(() => undefined)
            .finally(() => {
              loading = false;
            });
        }
        return ids.has(id);
      },
    };
  }
}
