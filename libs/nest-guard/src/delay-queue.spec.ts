import { afterEach, describe, expect, it, vi } from 'vitest';
import { DelayQueue } from './delay-queue';

describe('DelayQueue', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.useRealTimers();
  });

  it('wakes every sleeper at its time, in wake order, with one timer armed at a time', async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const queue = new DelayQueue();
    const woke: number[] = [];
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    const delays = [300, 100, 200, 100, 0, 500, 50];
    const sleeps = delays.map((ms, i) => queue.wait(ms).then(() => woke.push(i)));
    // Re-armed only when a sleeper due earlier than all others arrives (300, 100, 50 ms): 3 times
    // for 6 sleeps, and only one timer exists at any time.
    expect(setTimeoutSpy).toHaveBeenCalledTimes(3);
    expect(vi.getTimerCount()).toBe(1);
    expect(queue.size).toBe(6);
    await vi.advanceTimersByTimeAsync(49);
    expect(woke).toEqual([4]);
    await vi.advanceTimersByTimeAsync(1);
    expect(woke).toEqual([4, 6]);
    await vi.advanceTimersByTimeAsync(50);
    expect(woke).toEqual([4, 6, 1, 3]); // two due at 100 ms: in the order they came
    await vi.advanceTimersByTimeAsync(400);
    await Promise.all(sleeps);
    expect(woke).toEqual([4, 6, 1, 3, 2, 0, 5]);
    expect(queue.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sleeps past setTimeout\'s ~24.8-day ceiling in steps, without spinning (a monthly shaping bucket)', async () => {
    // Real timers: Node itself turns a longer setTimeout into a 1 ms one, which re-armed at once, forever.
    const queue = new DelayQueue();
    const setTimeoutSpy = vi.spyOn(globalThis, 'setTimeout');
    let woke = false;
    void queue.wait(31 * 86_400_000).then(() => (woke = true));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise<void>((resolve) => {
      const until = Date.now() + 30;
      const poll = () => (Date.now() >= until ? resolve() : setImmediate(poll));
      poll();
    });
    expect(setTimeoutSpy.mock.calls.map((call) => call[1])).toEqual([2 ** 31 - 1]);
    expect(woke).toBe(false);
    expect(queue.size).toBe(1);
  });

  it('wakes a sleeper longer than one timer step at its time', async () => {
    vi.useFakeTimers({ now: 0 });
    const queue = new DelayQueue();
    const ms = 2 ** 31 + 5_000;
    let wokeAt = -1;
    void queue.wait(ms).then(() => (wokeAt = Date.now()));
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
    expect(wokeAt).toBe(-1);
    await vi.advanceTimersByTimeAsync(ms - (2 ** 31 - 1));
    expect(wokeAt).toBe(ms);
  });

  it('never wakes a sleeper early', async () => {
    const queue = new DelayQueue();
    const started = Date.now();
    const waited = await Promise.all(
      Array.from({ length: 200 }, (_, i) => queue.wait(5 + (i % 40)).then(() => ({ want: 5 + (i % 40), got: Date.now() - started }))),
    );
    for (const { want, got } of waited) expect(got).toBeGreaterThanOrEqual(want);
    expect(queue.size).toBe(0);
  });

  it('resolves a zero or negative wait at once, without a timer', async () => {
    vi.useFakeTimers();
    const queue = new DelayQueue();
    await queue.wait(0);
    await queue.wait(-5);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps its timer unref\'d so it never holds the process open', () => {
    vi.useFakeTimers();
    const queue = new DelayQueue();
    const unref = vi.fn();
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation((() => ({ unref })) as never);
    void queue.wait(1000);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(unref).toHaveBeenCalledTimes(1);
  });
});
