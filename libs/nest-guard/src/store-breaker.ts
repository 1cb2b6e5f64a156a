export type BreakerState = 'closed' | 'open' | 'half-open';

export interface CircuitBreakerOptions {
  /** Consecutive failures (errors or timeouts) that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long the breaker stays open before one probe is let through. Default 1000 ms. */
  openMs?: number;
  clock?: () => number;
  /** Called when the breaker opens or closes (not on every probe). */
  onChange?: (state: 'open' | 'closed') => void;
}

/**
 * Consecutive-failure circuit breaker, driven by the calls themselves (no timers): open after
 * `failureThreshold` failures in a row; after `openMs` one caller probes (half-open); its success
 * closes the breaker, its failure opens it for another `openMs`.
 */
export class CircuitBreaker {
  private readonly failureThreshold: number;
  private readonly openMs: number;
  private readonly clock: () => number;
  private readonly onChange: (state: 'open' | 'closed') => void;
  private failures = 0;
  private openedAt = 0;
  private isOpen = false;
  private probing = false;

  constructor(opts: CircuitBreakerOptions = {}) {
    this.failureThreshold = opts.failureThreshold ?? 5;
    this.openMs = opts.openMs ?? 1000;
    this.clock = opts.clock ?? Date.now;
    this.onChange = opts.onChange ?? (() => undefined);
  }

  get state(): BreakerState {
    if (!this.isOpen) return 'closed';
    return this.probing || this.clock() - this.openedAt >= this.openMs ? 'half-open' : 'open';
  }

  /** Whether a call may go to the store now. In half-open, true for exactly one caller (the probe). */
  tryAcquire(): boolean {
    if (!this.isOpen) return true;
    if (this.probing || this.clock() - this.openedAt < this.openMs) return false;
    this.probing = true;
    return true;
  }

  success(): void {
    this.failures = 0;
    this.probing = false;
    if (this.isOpen) {
      this.isOpen = false;
      this.onChange('closed');
    }
  }

  failure(): void {
    this.failures++;
    if (this.probing || this.failures >= this.failureThreshold) {
      if (!this.isOpen) this.onChange('open');
      this.isOpen = true;
      this.openedAt = this.clock();
    }
    this.probing = false;
  }

  /** The acquired call ended without saying anything about the store (e.g. invalid input). */
  release(): void {
    this.probing = false;
  }
}

export class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';

  constructor(readonly timeoutMs: number) {
    super(`store did not answer within ${timeoutMs} ms`);
  }
}
