import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivalsArb, clockBackArrivalsArb, simulate, type Arrival } from './algorithm-simulation.test-util';
import { decideLimit, type LimitState } from './decide-limit';
import { MemoryStore } from './memory-store';
import type { Algorithm, Decision, LimitParams } from './types';
import { ALGORITHMS, validateLimitParams } from './validate-limit-params';

function paramsArb(algorithm: Algorithm, shaping = false): fc.Arbitrary<LimitParams> {
  return fc
    .record({
      limit: fc.integer({ min: 1, max: 20 }),
      windowMs: fc.integer({ min: 1, max: 5000 }),
      burst: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
    })
    .map((p) => validateLimitParams({ algorithm, ...p, ...(shaping ? { shaping } : {}) }));
}

/** Sum of admitted cost whose time lies in [from, to]. */
function costBetween(items: readonly { at: number; cost: number }[], from: number, to: number): number {
  let sum = 0;
  for (const x of items) if (x.at >= from && x.at <= to) sum += x.cost;
  return sum;
}

const RUNS = { numRuns: 150 };
const BASE = Date.UTC(2026, 4, 17, 12);

describe('token_bucket', () => {
  it('never admits more than burst + rate × elapsed in any interval', () => {
    fc.assert(
      fc.property(paramsArb('token_bucket'), arrivalsArb(400), (p, arrivals) => {
        const { admitted } = simulate(p, arrivals);
        for (let i = 0; i < admitted.length; i++) {
          for (let j = i; j < admitted.length; j++) {
            const cost = costBetween(admitted, admitted[i].t, admitted[j].t);
            // Multiplied through by windowMs: integers, no rounding.
            expect(cost * p.windowMs).toBeLessThanOrEqual(p.burst * p.windowMs + p.limit * (admitted[j].t - admitted[i].t));
          }
        }
      }),
      RUNS,
    );
  });

  it('decides exactly like gcra with the same burst (the two are the same policy)', () => {
    fc.assert(
      fc.property(paramsArb('token_bucket'), arrivalsArb(400), (p, arrivals) => {
        const tb = simulate(p, arrivals).steps.map((s) => s.decision.allowed);
        const g = simulate({ ...p, algorithm: 'gcra' }, arrivals).steps.map((s) => s.decision.allowed);
        expect(tb).toEqual(g);
      }),
      RUNS,
    );
  });
});

describe('gcra', () => {
  it('conforms to an exact BigInt virtual-scheduling GCRA', () => {
    fc.assert(
      fc.property(paramsArb('gcra'), arrivalsArb(400), (p, arrivals) => {
        // Reference: TAT kept as an exact rational with denominator `limit`.
        const L = BigInt(p.limit);
        const W = BigInt(p.windowMs);
        let tat = 0n; // × limit
        const expected: boolean[] = [];
        for (const a of arrivals) {
          const now = BigInt(a.t) * L;
          const base = tat > now ? tat : now;
          const next = base + BigInt(a.cost) * W;
          const ok = next - now <= BigInt(p.burst) * W;
          if (ok) tat = next;
          expected.push(ok);
        }
        expect(simulate(p, arrivals).steps.map((s) => s.decision.allowed)).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('admits exactly `burst` unit requests at once from idle', () => {
    const p = validateLimitParams({ algorithm: 'gcra', limit: 10, windowMs: 1000, burst: 4 });
    const arrivals = Array.from({ length: 10 }, () => ({ t: 1_000_000, cost: 1 }));
    expect(simulate(p, arrivals).admitted).toHaveLength(4);
  });
});

describe('leaky_bucket', () => {
  for (const shaping of [false, true]) {
    it(`a leaky bucket's output never exceeds its rate${shaping ? ' (shaping: delayed output)' : ''}`, () => {
      fc.assert(
        fc.property(paramsArb('leaky_bucket', shaping), arrivalsArb(300), (p, arrivals) => {
          const { admitted } = simulate(p, arrivals);
          const out = [...admitted].sort((x, y) => x.at - y.at);
          for (let i = 0; i < out.length; i++) {
            for (let j = i; j < out.length; j++) {
              const cost = costBetween(out, out[i].at, out[j].at);
              expect(cost * p.windowMs).toBeLessThanOrEqual(p.burst * p.windowMs + p.limit * (out[j].at - out[i].at));
            }
          }
        }),
        RUNS,
      );
    });
  }

  it('shaping delays instead of rejecting, and rejects only past one full bucket of wait', () => {
    const p = validateLimitParams({ algorithm: 'leaky_bucket', limit: 10, windowMs: 1000, burst: 5, shaping: true });
    const arrivals = Array.from({ length: 12 }, () => ({ t: 1_000_000, cost: 1 }));
    const { steps } = simulate(p, arrivals);
    expect(steps.map((s) => s.decision.delayMs)).toEqual([0, 0, 0, 0, 0, 100, 200, 300, 400, 500, 0, 0]);
    expect(steps.map((s) => s.decision.allowed)).toEqual([...Array(10).fill(true), false, false]);
    expect(steps[10].decision.retryAfterMs).toBe(100);
  });
});

describe('fixed_window', () => {
  it('admits at most `limit` per aligned window', () => {
    fc.assert(
      fc.property(paramsArb('fixed_window'), arrivalsArb(400), (p, arrivals) => {
        const perWindow = new Map<number, number>();
        for (const a of simulate(p, arrivals).admitted) {
          const w = Math.floor(a.t / p.windowMs);
          perWindow.set(w, (perWindow.get(w) ?? 0) + a.cost);
        }
        for (const count of perWindow.values()) expect(count).toBeLessThanOrEqual(p.limit);
      }),
      RUNS,
    );
  });
});

describe('sliding_log', () => {
  it('never admits more than `limit` in any (t - windowMs, t], and rejects only when it must', () => {
    fc.assert(
      fc.property(paramsArb('sliding_log'), arrivalsArb(400), (p, arrivals) => {
        const { admitted, steps } = simulate(p, arrivals);
        for (const a of admitted) expect(costBetween(admitted, a.t - p.windowMs + 1, a.t)).toBeLessThanOrEqual(p.limit);
        for (const s of steps) {
          if (s.decision.allowed) continue;
          const inWindow = costBetween(admitted, s.arrival.t - p.windowMs + 1, s.arrival.t);
          expect(inWindow + s.arrival.cost).toBeGreaterThan(p.limit);
        }
      }),
      RUNS,
    );
  });
});

describe('sliding_window', () => {
  it("the sliding window counter's error stays within its documented bound", () => {
    fc.assert(
      fc.property(paramsArb('sliding_window'), arrivalsArb(400), (p, arrivals) => {
        const { admitted } = simulate(p, arrivals);
        const w = p.windowMs;
        for (const a of admitted) {
          const start = Math.floor(a.t / w) * w;
          const elapsed = a.t - start;
          const previous = costBetween(admitted, start - w, start - 1);
          const inWindow = costBetween(admitted, a.t - w + 1, a.t);
          // Documented bound: admitted in (t - W, t] <= limit + previous × elapsed / W < 2 × limit.
          // (< 2 × limit follows: previous <= limit, elapsed < W.)
          expect(inWindow * w).toBeLessThanOrEqual(p.limit * w + previous * elapsed);
        }
      }),
      RUNS,
    );
  });
});

const SEQUENCES: [string, (maxGapMs: number, maxCost: number, maxLength: number) => fc.Arbitrary<Arrival[]>][] = [
  ['forward clock', (gap, cost, length) => arrivalsArb(gap, cost, length)],
  ['clock stepping back', (gap, cost, length) => clockBackArrivalsArb(gap, 3 * gap, cost, length)],
];

describe('every algorithm', () => {
  for (const algorithm of ALGORITHMS) {
    for (const [clock, arrivals] of SEQUENCES) {
      it(`${algorithm}, ${clock}: retryAfterMs is exact (rejected 1 ms earlier, admitted then) and remaining is exact`, () => {
        fc.assert(
          fc.property(paramsArb(algorithm), arrivals(400, 3, 60), (p, seq) => {
            for (const { arrival, before, decision } of simulate(p, seq).steps) {
              expect(decision.remaining).toBeGreaterThanOrEqual(0);
              if (!decision.allowed) {
                if (decision.neverFits) {
                  expect(decision.retryAfterMs).toBe(Infinity);
                  continue;
                }
                const r = decision.retryAfterMs;
                expect(r).toBeGreaterThan(0);
                expect(decideLimit(before, arrival.t + r, p, arrival.cost).allowed).toBe(true);
                expect(decideLimit(before, arrival.t + r - 1, p, arrival.cost).allowed).toBe(false);
              } else {
                expect(decision.retryAfterMs).toBe(0);
                let state = decision.state;
                for (let k = 0; k < decision.remaining; k++) {
                  const next = decideLimit(state, arrival.t, p, 1);
                  expect(next.allowed).toBe(true);
                  state = next.state;
                }
                expect(decideLimit(state, arrival.t, p, 1).allowed).toBe(false);
              }
            }
          }),
          { numRuns: 80 },
        );
      });

      it(`${algorithm}, ${clock}: a state past its ttlMs decides like no state`, () => {
        fc.assert(
          fc.property(paramsArb(algorithm), arrivals(400, 3, 40), fc.integer({ min: 0, max: 10_000 }), (p, seq, later) => {
            for (const { arrival, decision } of simulate(p, seq).steps) {
              if (!decision.allowed) continue;
              const t = arrival.t + decision.ttlMs + later;
              for (const cost of [0, 1, p.limit, p.burst]) {
                const a = decideLimit(decision.state, t, p, cost);
                const b = decideLimit(undefined, t, p, cost);
                expect([a.allowed, a.remaining, a.resetMs, a.retryAfterMs]).toEqual([b.allowed, b.remaining, b.resetMs, b.retryAfterMs]);
              }
            }
          }),
          { numRuns: 60 },
        );
      });
    }

    it(`${algorithm}: a cost that can never fit says so`, () => {
      const p = validateLimitParams({ algorithm, limit: 5, windowMs: 1000, burst: 5 });
      const d = decideLimit(undefined, 1_000_000, p, 6);
      expect(d).toMatchObject({ allowed: false, neverFits: true, retryAfterMs: Infinity });
    });
  }

  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: params changed mid-sequence (tightened or loosened): remaining >= 0, and MemoryStore decides as the pure function`, () => {
      fc.assert(
        fc.property(
          fc.array(paramsArb(algorithm), { minLength: 2, maxLength: 4 }),
          clockBackArrivalsArb(300, 600, 4, 80),
          fc.array(fc.nat(), { minLength: 80, maxLength: 80 }),
          (paramSets, seq, picks) => {
            const store = new MemoryStore();
            // One LimitCheck per params set, reused as a caller's cached key entry would be.
            const checks = paramSets.map((params) => ({ name: 'l', identity: 'key:p', params }));
            // The pure expectation with the store's own rules: state kept until its ttl, dropped at ttl 0.
            let state: LimitState | undefined;
            let expiresAt = 0;
            seq.forEach((a, i) => {
              const k = Math.floor(picks[i] / 7) % paramSets.length;
              const live = state !== undefined && expiresAt > a.t ? state : undefined;
              const d: Decision<LimitState | undefined> = decideLimit(live, a.t, paramSets[k], a.cost);
              const got = store.checkSync({ limits: [checks[k]], cost: a.cost, nowMs: a.t });
              expect(d.remaining).toBeGreaterThanOrEqual(0);
              expect(got.limits[0]).toEqual({
                name: 'l',
                limit: paramSets[k].limit,
                allowed: d.allowed,
                remaining: d.remaining,
                resetMs: d.resetMs,
                retryAfterMs: d.retryAfterMs,
                delayMs: d.delayMs,
                neverFits: d.neverFits,
              });
              if (d.allowed) {
                state = d.ttlMs > 0 ? d.state : undefined;
                expiresAt = a.t + d.ttlMs;
              } else if (live === undefined) {
                state = undefined;
              }
            });
          },
        ),
        RUNS,
      );
    });
  }
});

describe('sliding_log storage', () => {
  it('holds at most one entry per ms, adds none for cost 0, and drops an emptied log', () => {
    fc.assert(
      fc.property(paramsArb('sliding_log'), clockBackArrivalsArb(30, 60, 3, 120), (p, seq) => {
        for (const { decision } of simulate(p, seq).steps) {
          const s = decision.state as { times: number[]; head: number; end: number } | undefined;
          if (s === undefined) continue;
          const live = s.times.slice(s.head, s.end);
          expect(new Set(live).size).toBe(live.length);
          expect(s.end).toBeGreaterThan(s.head);
        }
      }),
      RUNS,
    );
    const p = validateLimitParams({ algorithm: 'sliding_log', limit: 100, windowMs: 1000 });
    const at = (n: number, t: number, cost: number) => simulate(p, Array.from({ length: n }, () => ({ t, cost })));
    const same = at(50, BASE, 1).steps.at(-1)!.decision;
    expect(same.state).toMatchObject({ head: 0, end: 1, sum: 50, newestCost: 50 });
    expect(same.remaining).toBe(50);
    expect(at(5, BASE, 0).steps.every((s) => s.decision.allowed && s.decision.state === undefined && s.decision.ttlMs === 0)).toBe(true);
  });
});
export type { Arrival };
