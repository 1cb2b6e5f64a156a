import { StoreTimeoutError } from './store-breaker';

interface Pending {
  deadline: number;
  settled: boolean;
  reject: (error: Error) => void;
}

/**
 * Deadlines for store calls without a timer per call: every call gets the same timeout, so they
 * expire in the order they started, and one timer (armed for the oldest pending call) serves them
 * all. Calls that settled in time are dropped lazily when the timer passes them.
 */
export class Deadlines {
  private queue: Pending[] = [];
  private head = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly timeoutMs: number,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Settles with `promise`, or rejects with StoreTimeoutError once `timeoutMs` has passed. */
  run<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = { deadline: this.clock() + this.timeoutMs, settled: false, reject };
      this.queue.push(entry);
      promise.then(
        (value) => {
          if (entry.settled) return;
          entry.settled = true;
          resolve(value);
        },
        (error: unknown) => {
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
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head];
      if (!entry.settled && entry.deadline > now) break;
      this.head++;
      if (!entry.settled) {
        entry.settled = true;
        entry.reject(new StoreTimeoutError(this.timeoutMs));
      }
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.arm();
  }
}
