import type { VerifiedLimit } from './key-record';

interface Block {
  planId: string;
  cost: number;
  /** Local clock: until when this limit surely cannot admit `cost` (or more); counted from when the check was sent. */
  untilMs: number;
  /** Local clock: the earliest time a retry is sure not to be early; counted from when the answer arrived. */
  retryAtMs: number;
  /** Local clock: when the limit was due to be fully reset (from when the answer arrived). */
  resetAtMs: number;
}

export interface BlockedLimit {
  name: string;
  retryAfterMs: number;
  resetMs: number;
}

export interface BlockedMatch {
  /** The longest wait over the blocking limits (never early: counted from when the refusal arrived). */
  retryAfterMs: number;
  limits: BlockedLimit[];
}

/**
 * Keys whose last check was RATE_LIMITED: per (keyId, limit name) the cost that was refused and
 * until when. A later request of that key that includes the limit, with the same cost, is refused
 * locally until then: a limit's retry time is a lower bound (other traffic can only push it
 * later), so this never refuses what Redis would admit, and it never admits anything. A larger
 * cost goes to Redis: it would be refused too, but its wait is longer than the one remembered,
 * and a Retry-After must never be early (nor one for a cost that can never fit say it will).
 * Redis decided somewhere between sending and answering, so the block ends at `sent + wait`
 * (never longer than the truth) while the Retry-After it reports runs to `arrived + wait` (never
 * earlier than the truth). Bounded; expired entries go when read.
 */
export class BlockedKeys {
  private readonly blocks = new Map<string, Map<string, Block>>();

  constructor(
    private readonly maxKeys = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  get size(): number {
    return this.blocks.size;
  }

  /**
   * Remembers the limits that refused this request (finite waits only). `sentAtMs` / `arrivedAtMs`:
   * the local times the check was sent and its answer arrived.
   */
  remember(keyId: string, planId: string, cost: number, limits: readonly VerifiedLimit[], sentAtMs: number, arrivedAtMs = this.clock()): void {
    let byName: Map<string, Block> | undefined;
    for (const limit of limits) {
      const wait = limit.retryAfterMs;
      if (wait === undefined || !(wait > 0) || !Number.isFinite(wait)) continue;
      byName ??= this.blocks.get(keyId) ?? new Map<string, Block>();
      byName.set(limit.name, { planId, cost, untilMs: sentAtMs + wait, retryAtMs: arrivedAtMs + wait, resetAtMs: arrivedAtMs + Math.max(wait, limit.resetMs) });
    }
    if (byName === undefined) return;
    this.blocks.delete(keyId);
    this.blocks.set(keyId, byName);
    while (this.blocks.size > this.maxKeys) {
      const oldest = this.blocks.keys().next().value;
      if (oldest === undefined) break;
      this.blocks.delete(oldest);
    }
  }

  /** Whether a request of `cost` over `names` is known to be refused now. */
  match(keyId: string, cost: number, names: readonly string[]): BlockedMatch | undefined {
    const byName = this.blocks.get(keyId);
    if (byName === undefined) return undefined;
    const now = this.clock();
    let retryAfterMs = 0;
    let blocking: BlockedLimit[] | undefined;
    for (const [name, block] of byName) {
      if (block.untilMs <= now) {
        byName.delete(name);
        continue;
      }
      if (cost === block.cost && names.includes(name)) {
        const wait = block.retryAtMs - now;
        (blocking ??= []).push({ name, retryAfterMs: wait, resetMs: Math.max(wait, block.resetAtMs - now) });
        if (wait > retryAfterMs) retryAfterMs = wait;
      }
    }
    if (byName.size === 0) this.blocks.delete(keyId);
    return blocking === undefined ? undefined : { retryAfterMs, limits: blocking };
  }

  forgetKey(keyId: string): void {
    this.blocks.delete(keyId);
  }

  forgetPlan(planId: string): void {
    for (const [keyId, byName] of this.blocks) {
      for (const block of byName.values()) {
        if (block.planId === planId) {
          this.blocks.delete(keyId);
          break;
        }
      }
    }
  }

  clear(): void {
    this.blocks.clear();
  }
}
