import { StoreTimeoutError } from './store-breaker';

interface Pending {
  startedAt: number;
  deadline: number;
  settled: boolean;
  reject: (error: Error) => void;
}

/**
 * Deadlines for store calls, without a timer per call.
 *
 * By default (`maxWaitMs` = `timeoutMs`) a call fails `timeoutMs` after it started, as the
 * contract's "slower than 50 ms" says. Opt-in extension (`maxWaitMs` > `timeoutMs`): a call whose
 * deadline passes while other answers keep arriving (Redis alive, draining a burst) gets another
 * `timeoutMs`, up to `maxWaitMs` in all; only a store that made no progress for `timeoutMs`
 * (stalled, paused, unreachable) fails it. That trades the strict deadline for fewer fail-mode
 * answers to requests Redis was about to decide (and had charged) during bursts.
 *
 * Every call gets the same timeout, so deadlines fall in the order calls started (an extended
 * call goes to the back, where its new deadline belongs): one timer, armed for the oldest
 * pending call, serves them all, and calls that settled are dropped lazily.
 */
export class Deadlines {
  private queue: Pending[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastProgressAt = -Infinity;

  readonly maxWaitMs: number;

  constructor(
    readonly timeoutMs: number,
    maxWaitMs: number = timeoutMs,
    private readonly clock: () => number = Date.now,
  ) {
    this.maxWaitMs = Math.max(timeoutMs, maxWaitMs);
  }

  /** Settles with `promise`, or rejects with StoreTimeoutError when the store stops answering. */
  run<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const now = this.clock();
      const entry: Pending = { startedAt: now, deadline: now + this.timeoutMs, settled: false, reject };
      this.queue.push(entry);
      promise.then(
        (value) => {
          this.lastProgressAt = this.clock();
          if (entry.settled) return;
          entry.settled = true;
          resolve(value);
        },
        (error: unknown) => {
          this.lastProgressAt = this.clock();
          if (entry.settled) return;
          entry.settled = true;
          reject(error);
        },
      );
      this.arm();
    });
  }

  /** Calls still waiting (settled ones not yet swept are not counted). */
  get pending(): number {
    let count = 0;
    for (let i = this.head; i < this.queue.length; i++) if (!this.queue[i].settled) count++;
    return count;
  }

  private arm(): void {
    if (this.timer !== undefined || this.head >= this.queue.length) return;
    const wait = Math.max(0, this.queue[this.head].deadline - this.clock());
    this.timer = setTimeout(() => {
      // A busy event loop runs due timers before it reads sockets: let replies that have already
      // arrived be read first (one poll phase), so our own backlog is not mistaken for a slow store.
      setImmediate(() => {
        this.timer = undefined;
        this.expire();
      });
    }, wait);
    this.timer.unref?.();
  }

  private expire(): void {
    const now = this.clock();
    const extended: Pending[] = [];
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head];
      if (!entry.settled && entry.deadline > now) break;
      this.head++;
      if (entry.settled) continue;
      const progressing = now - this.lastProgressAt < this.timeoutMs;
      if (progressing && now - entry.startedAt < this.maxWaitMs) {
        entry.deadline = Math.min(now + this.timeoutMs, entry.startedAt + this.maxWaitMs);
        extended.push(entry);
        continue;
      }
      entry.settled = true;
      entry.reject(new StoreTimeoutError(this.timeoutMs));
    }
    for (const entry of extended) this.queue.push(entry);
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.arm();
  }
}
