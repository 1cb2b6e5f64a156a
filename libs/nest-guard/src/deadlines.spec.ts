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

  it('never rejects before the timeout has passed', async () => {
    const deadlines = new Deadlines(60);
    const started = Date.now();
    await expect(deadlines.run(new Promise(() => undefined))).rejects.toBeInstanceOf(StoreTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(59);
  });
});
