const MAX_TIMER_MS = 2 ** 31 - 1;

interface Sleeper {
  wakeAt: number;
  /** Insertion order, so sleepers due at the same time wake in the order they came. */
  seq: number;
  resolve: () => void;
}

/**
 * Many sleeps, one timer: sleepers wait in a min-heap by wake time and a single (unref'd) timer
 * is armed for the earliest one. What shaping (leaky bucket with `shaping: true`) uses to hold
 * requests, so no request allocates a timer of its own.
 */
export class DelayQueue {
  private readonly heap: Sleeper[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Wake time the timer is armed for. */
  private armedFor = Infinity;
  private seq = 0;

  constructor(private readonly clock: () => number = Date.now) {}

  /** Sleepers still waiting. */
  get size(): number {
    return this.heap.length;
  }

  /** Resolves after `ms` (at once for 0 or less). */
  wait(ms: number): Promise<void> {
    if (!(ms > 0)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.push({ wakeAt: this.clock() + ms, seq: this.seq++, resolve });
      this.arm();
    });
  }

  private arm(): void {
    const next = this.heap[0];
    if (next === undefined || next.wakeAt >= this.armedFor) return;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.armedFor = next.wakeAt;
    // setTimeout takes at most 2^31 - 1 ms (~24.8 days) and fires at once beyond that, which would
    // re-arm at once, forever: a longer sleep (a monthly shaping bucket) is slept in steps.
    this.timer = setTimeout(this.fire, Math.min(MAX_TIMER_MS, Math.max(0, next.wakeAt - this.clock())));
    this.timer.unref?.();
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = this.clock();
    while (this.heap.length > 0 && this.heap[0].wakeAt <= now) this.pop().resolve();
    this.arm();
  };

  private push(sleeper: Sleeper): void {
    const heap = this.heap;
    heap.push(sleeper);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i], heap[parent])) break;
      swap(heap, i, parent);
      i = parent;
    }
  }

  private pop(): Sleeper {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop() as Sleeper;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && before(heap[left], heap[smallest])) smallest = left;
        if (right < heap.length && before(heap[right], heap[smallest])) smallest = right;
        if (smallest === i) break;
        swap(heap, i, smallest);
        i = smallest;
      }
    }
    return top;
  }
}

function before(a: Sleeper, b: Sleeper): boolean {
  return a.wakeAt < b.wakeAt || (a.wakeAt === b.wakeAt && a.seq < b.seq);
}

function swap(heap: Sleeper[], i: number, j: number): void {
  const t = heap[i];
  heap[i] = heap[j];
  heap[j] = t;
}
