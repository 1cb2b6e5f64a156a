import { StoreTimeoutError } from './store-breaker';

/** A call in flight: a node of the list of pending calls, oldest first. */
interface Pending {
  startedAt: number;
  deadline: number;
  settled: boolean;
  reject: (error: Error) => void;
  prev: Pending | undefined;
  next: Pending | undefined;
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
 * pending call, serves them all. Pending calls form a doubly linked list, and a call leaves it
 * the moment it settles: its node is garbage at once, while the call's promise is still young.
 * (Settled nodes left in an array until the timer swept them lived through several young-
 * generation collections, each copying them, and were then promoted; on the guard's hot path that
 * cost 1.3-1.4 us of CPU per call against 0.2 us now: bench/probes/guard-pieces.ts.)
 */
export class Deadlines {
  private head: Pending | undefined;
  private tail: Pending | undefined;
  private count = 0;
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
      const entry: Pending = { startedAt: now, deadline: now + this.timeoutMs, settled: false, reject, prev: undefined, next: undefined };
      this.append(entry);
      promise.then(
        (value) => {
          this.lastProgressAt = this.clock();
          if (entry.settled) return;
          entry.settled = true;
          this.unlink(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.lastProgressAt = this.clock();
          if (entry.settled) return;
          entry.settled = true;
          this.unlink(entry);
          reject(error);
        },
      );
      this.arm();
    });
  }

  /** Calls still waiting. */
  get pending(): number {
    return this.count;
  }

  private append(entry: Pending): void {
    entry.prev = this.tail;
    entry.next = undefined;
    if (this.tail === undefined) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
    this.count++;
  }

  private unlink(entry: Pending): void {
    if (entry.prev === undefined) this.head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) this.tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
    this.count--;
  }

  private arm(): void {
    if (this.timer !== undefined || this.head === undefined) return;
    const wait = Math.max(0, this.head.deadline - this.clock());
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
    for (let entry = this.head; entry !== undefined && entry.deadline <= now; entry = this.head) {
      this.unlink(entry);
      const progressing = now - this.lastProgressAt < this.timeoutMs;
      if (progressing && now - entry.startedAt < this.maxWaitMs) {
        entry.deadline = Math.min(now + this.timeoutMs, entry.startedAt + this.maxWaitMs);
        extended.push(entry);
        continue;
      }
      entry.settled = true;
      entry.reject(new StoreTimeoutError(this.timeoutMs));
    }
    for (const entry of extended) this.append(entry);
    this.arm();
  }
}
