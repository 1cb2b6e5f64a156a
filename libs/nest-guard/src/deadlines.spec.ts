import { describe, expect, it } from 'vitest';
import { Deadlines } from './deadlines';
import { StoreTimeoutError } from './store-breaker';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const later = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('Deadlines', () => {
  it('passes answers that come in time and times out the ones that do not', async () => {
    const deadlines = new Deadlines(40);
    const fast = deadlines.run(later(5, 'fast'));
    const slow = deadlines.run(later(200, 'slow'));
    const failing = expect(deadlines.run(Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(fast).resolves.toBe('fast');
    await failing;
    await expect(slow).rejects.toBeInstanceOf(StoreTimeoutError);
  });

  it('serves thousands of calls with one timer at a time and forgets settled ones', async () => {
    const deadlines = new Deadlines(30);
    const calls = Array.from({ length: 5000 }, (_, i) => deadlines.run(i % 2 ? later(1, i) : new Promise<number>(() => undefined)));
    const results = await Promise.allSettled(calls);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2500);
    expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof StoreTimeoutError)).toHaveLength(2500);
    await sleep(50);
    expect(deadlines.pending).toBe(0);
  });

  it('counts as pending only the calls still waiting, before its timer has run', async () => {
    const deadlines = new Deadlines(10_000);
    const hanging = deadlines.run(new Promise<number>(() => undefined));
    hanging.catch(() => undefined);
    const answered = await Promise.all(Array.from({ length: 100 }, (_, i) => deadlines.run(Promise.resolve(i))));
    expect(answered).toHaveLength(100);
    // Only the hanging call is left; the timer (10 s away) has not run.
    expect(deadlines.pending).toBe(1);
  });

  it('never rejects before the timeout has passed', async () => {
    const deadlines = new Deadlines(60);
    const started = Date.now();
    await expect(deadlines.run(new Promise(() => undefined))).rejects.toBeInstanceOf(StoreTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(59);
  });
});

describe('Deadlines by default (contract-strict)', () => {
  it('times a call out after timeoutMs even while other answers keep arriving', async () => {
    const deadlines = new Deadlines(30);
    expect(deadlines.maxWaitMs).toBe(30);
    const ticker = setInterval(() => void deadlines.run(Promise.resolve(0)), 5);
    try {
      const started = Date.now();
      await expect(deadlines.run(new Promise(() => undefined))).rejects.toBeInstanceOf(StoreTimeoutError);
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(29);
      expect(waited).toBeLessThan(120);
    } finally {
      clearInterval(ticker);
    }
  });
});

describe('Deadlines with the opt-in extension, while the store drains a burst', () => {
  it('keeps waiting for calls while other answers keep arriving, up to maxWaitMs', async () => {
    const deadlines = new Deadlines(30, 400);
    // A store answering one call every 10 ms: the last of 20 answers after ~200 ms, far past 30 ms.
    const calls = Array.from({ length: 20 }, (_, i) => deadlines.run(later(10 * (i + 1), i)));
    await expect(Promise.all(calls)).resolves.toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('still times out at once when nothing comes back at all (a stalled store)', async () => {
    const deadlines = new Deadlines(30, 400);
    const started = Date.now();
    await expect(deadlines.run(new Promise(() => undefined))).rejects.toBeInstanceOf(StoreTimeoutError);
    expect(Date.now() - started).toBeLessThan(200);
  });

  it('gives up after maxWaitMs even while others progress', async () => {
    const deadlines = new Deadlines(20, 120);
    const ticker = setInterval(() => void deadlines.run(Promise.resolve(0)), 5);
    try {
      const started = Date.now();
      await expect(deadlines.run(new Promise(() => undefined))).rejects.toBeInstanceOf(StoreTimeoutError);
      const waited = Date.now() - started;
      expect(waited).toBeGreaterThanOrEqual(119);
      expect(waited).toBeLessThan(400);
    } finally {
      clearInterval(ticker);
    }
  });
});
