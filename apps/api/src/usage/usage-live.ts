import { Logger } from '@nestjs/common';
import { USAGE_OUTCOMES, type UsageCounts, type UsageStreamEvent } from '@tollgate/contracts';
import { addCounts, emptyCounts, totalOf } from './usage-counts';
import { MINUTE_MS } from './usage-range';
import type { UsageStore } from './usage-store';

export interface LiveSubscriber {
  /** Which key ids this subscriber counts; re-evaluated on every tick (it may refresh itself). */
  accepts(keyId: string): boolean;
  event(event: UsageStreamEvent): void;
  heartbeat(): void;
  /** The feed is shutting down: end the response. */
  close(): void;
}

const TICK_MS = 1000;
const HEARTBEAT_MS = 15_000;

/**
 * One poller for every /v1/usage/stream client: while at least one is connected it reads the
 * current and previous minute from Redis once a second (live hashes plus snapshots, so a flush
 * does not look like a drop), diffs each `<keyId>|<outcome>` counter against the previous read,
 * and hands each subscriber the sum of the deltas of the keys it accepts. A subscriber with no
 * new decisions for 15 s gets a heartbeat comment instead. No timer runs without subscribers.
 */
export class UsageLiveFeed {
  private readonly logger = new Logger('UsageLiveFeed');
  private readonly subscribers = new Map<LiveSubscriber, { lastSentAt: number }>();
  private timer: NodeJS.Timeout | undefined;
  private previous: Map<string, number> | undefined;
  private ticking = false;

  constructor(private readonly store: UsageStore) {}

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  get active(): boolean {
    return this.timer !== undefined;
  }

  /** Returns the unsubscribe function (idempotent); the timer stops with the last subscriber. */
  subscribe(subscriber: LiveSubscriber): () => void {
    this.subscribers.set(subscriber, { lastSentAt: Date.now() });
    if (!this.timer) {
      this.previous = undefined;
      this.timer = setInterval(() => void this.tick(), TICK_MS);
      void this.tick(); // the baseline, so the first delta comes one tick later
    }
    return () => this.unsubscribe(subscriber);
  }

  private unsubscribe(subscriber: LiveSubscriber): void {
    this.subscribers.delete(subscriber);
    if (this.subscribers.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
      this.previous = undefined;
    }
  }

  /** Ends every stream and the timer (module shutdown). */
  closeAll(): void {
    for (const subscriber of [...this.subscribers.keys()]) {
      this.unsubscribe(subscriber);
      try {
        subscriber.close();
      } catch {
        // the connection is already gone
      }
    }
  }

  private async tick(): Promise<void> {
    if (this.ticking) return; // a slow Redis read: skip rather than pile up
    this.ticking = true;
    try {
      const probeNow = Date.now();
      const minute = Math.floor(probeNow / MINUTE_MS) * MINUTE_MS;
      const read = await this.store.readOpen(minute - 2 * MINUTE_MS, minute + MINUTE_MS);
      const current = new Map<string, number>();
      const lastMinute = Math.floor(read.nowMs / MINUTE_MS) * MINUTE_MS;
      for (const bucket of [...read.live, ...read.snapshots]) {
        if (bucket.minuteMs < lastMinute - MINUTE_MS) continue;
        for (const row of bucket.rows) {
          for (const outcome of USAGE_OUTCOMES) {
            if (!row[outcome]) continue;
            const id = `${bucket.minuteMs}|${row.keyId}|${outcome}`;
            current.set(id, (current.get(id) ?? 0) + row[outcome]);
          }
        }
      }
      const previous = this.previous;
      this.previous = current;
      if (!previous || !this.timer) return;
      const deltas = new Map<string, UsageCounts>();
      for (const [id, count] of current) {
        const delta = count - (previous.get(id) ?? 0);
        if (delta <= 0) continue;
        const [, keyId, outcome] = id.split('|') as [string, string, keyof UsageCounts];
        let counts = deltas.get(keyId);
        if (!counts) deltas.set(keyId, (counts = emptyCounts()));
        counts[outcome] += delta;
      }
      const ts = new Date(read.nowMs).toISOString();
      const now = Date.now();
      for (const [subscriber, state] of this.subscribers) {
        const sum = emptyCounts();
        for (const [keyId, counts] of deltas) if (subscriber.accepts(keyId)) addCounts(sum, counts);
        try {
          if (totalOf(sum) > 0) {
            subscriber.event({ ts, ...sum });
            state.lastSentAt = now;
          } else if (now - state.lastSentAt >= HEARTBEAT_MS) {
            subscriber.heartbeat();
            state.lastSentAt = now;
          }
        } catch {
          this.unsubscribe(subscriber);
        }
      }
    } catch (error) {
      this.logger.warn(`usage stream read failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.ticking = false;
    }
  }
}
