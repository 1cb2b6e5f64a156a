import { describe, expect, it } from 'vitest';
import { CircuitBreaker, StoreTimeoutError, withTimeout } from './store-breaker';

describe('CircuitBreaker', () => {
  it('opens after 5 consecutive failures, lets one probe through after 1 s, closes on its success', () => {
    let now = 0;
    const changes: string[] = [];
    const breaker = new CircuitBreaker({ failureThreshold: 5, openMs: 1000, clock: () => now, onChange: (s) => changes.push(s) });
    for (let i = 0; i < 4; i++) {
      expect(breaker.tryAcquire()).toBe(true);
      breaker.failure();
    }
    expect(breaker.state).toBe('closed');
    breaker.tryAcquire();
    breaker.failure();
    expect(breaker.state).toBe('open');
    expect(breaker.tryAcquire()).toBe(false);
    now = 999;
    expect(breaker.tryAcquire()).toBe(false);
    now = 1000;
    expect(breaker.state).toBe('half-open');
    expect(breaker.tryAcquire()).toBe(true);
    expect(breaker.tryAcquire()).toBe(false); // only one probe at a time
    breaker.success();
    expect(breaker.state).toBe('closed');
    expect(breaker.tryAcquire()).toBe(true);
    expect(changes).toEqual(['open', 'closed']);
  });

  it('a failed probe opens it for another full second', () => {
    let now = 0;
    const breaker = new CircuitBreaker({ failureThreshold: 1, openMs: 1000, clock: () => now });
    breaker.failure();
    now = 1000;
    expect(breaker.tryAcquire()).toBe(true);
    breaker.failure();
    expect(breaker.state).toBe('open');
    now = 1999;
    expect(breaker.tryAcquire()).toBe(false);
    now = 2000;
    expect(breaker.tryAcquire()).toBe(true);
  });

  it('a success resets the consecutive count', () => {
    const breaker = new CircuitBreaker({ failureThreshold: 3 });
    breaker.failure();
    breaker.failure();
    breaker.success();
    breaker.failure();
    breaker.failure();
    expect(breaker.state).toBe('closed');
  });
});

describe('withTimeout', () => {
  it('rejects a call that never settles after the deadline (50 ms), within 40 ms of it', async () => {
    const started = performance.now();
    await expect(withTimeout(new Promise(() => undefined), 50)).rejects.toBeInstanceOf(StoreTimeoutError);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(90);
  });

  it('passes a fast answer and its errors through', async () => {
    await expect(withTimeout(Promise.resolve(7), 50)).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('boom')), 50)).rejects.toThrow('boom');
  });
});
