import { describe, expect, it } from 'vitest';
import { CircuitBreaker } from './store-breaker';

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
