import { createHash } from 'node:crypto';
import { InvalidLimitParamsError } from './errors';
import { ALGORITHM_CODES, limitStateKey, quotaKey } from './redis-key-layout';
import { CHECK_SCRIPT } from './redis-check-script';
import { resolveLimitParams } from './resolve-limit-params';
import type { CheckCode, CheckRequest, CheckResult, LimitOutcome, MeterTarget, RateLimitStore } from './types';
import { validateCost, validateIdentity, validateQuotaCheck } from './validate-limit-params';

/** The two ioredis commands the store uses; an ioredis `Redis` (v5 or v6) satisfies it. */
export interface RedisScriptClient {
  evalsha(sha1: string, numkeys: number, ...args: (string | number)[]): Promise<unknown>;
  script(subcommand: 'LOAD', script: string): Promise<unknown>;
}

export interface RedisStoreOptions {
  /** Prepended to every key, default `tg:`. */
  prefix?: string;
  /** Allows `nowMs` per call instead of Redis TIME. Tests only. */
  testClock?: boolean;
  /**
   * With testClock, TTLs are real time while state is on the test clock, so keys get this much
   * extra life (default 60 s). Harmless: a state past its TTL decides exactly like no state.
   */
  testTtlPaddingMs?: number;
}

const CODES: readonly CheckCode[] = ['VALID', 'RATE_LIMITED', 'QUOTA_EXCEEDED'];
const SCRIPT_SHA = createHash('sha1').update(CHECK_SCRIPT).digest('hex');

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/**
 * Redis-backed store: one EVALSHA per request decides all its limits and its quota atomically on
 * Redis time, charges all or none, and meters the outcome.
 */
export class RedisStore implements RateLimitStore {
  readonly prefix: string;
  private readonly testClock: boolean;
  private readonly ttlPadding: string;

  constructor(
    private readonly redis: RedisScriptClient,
    opts: RedisStoreOptions = {},
  ) {
    this.prefix = opts.prefix ?? 'tg:';
    this.testClock = opts.testClock === true;
    this.ttlPadding = this.testClock ? String(opts.testTtlPaddingMs ?? 60_000) : '0';
  }

  /** SHA1 of the check script, as EVALSHA uses it. */
  static readonly scriptSha = SCRIPT_SHA;

  async check(req: CheckRequest): Promise<CheckResult> {
    const nowArg = this.nowArg(req.nowMs);
    const cost = validateCost(req.cost);
    const checks = req.limits;
    const n = checks.length;
    const hasQuota = req.quota !== undefined;
    const quota = hasQuota ? validateQuotaCheck(req.quota!) : undefined;
    const meter = req.meter;
    // Compact ARGV: every number as a short decimal string, 5 slots per limit, keys first.
    const args: (string | number)[] = new Array(n + (hasQuota ? 1 : 0) + 10 + n * 5);
    let a = 0;
    for (let i = 0; i < n; i++) {
      const check = checks[i];
      const params = resolveLimitParams(check.params);
      validateIdentity('identity', check.identity);
      args[a++] = limitStateKey(this.prefix, check.identity, check.name, params.algorithm);
    }
    if (quota !== undefined) args[a++] = quotaKey(this.prefix, quota.identity);
    args[a++] = nowArg;
    args[a++] = cost;
    args[a++] = n;
    args[a++] = this.ttlPadding;
    args[a++] = quota === undefined ? '' : quota.limit;
    args[a++] = quota === undefined ? '' : quota.period === 'day' ? 'd' : 'm';
    args[a++] = quota === undefined ? '' : quota.resetDay;
    args[a++] = meter === undefined ? '' : this.prefix + meter.keyPrefix;
    args[a++] = meter === undefined ? '' : meter.member;
    args[a++] = 'c';
    for (let i = 0; i < n; i++) {
      const params = resolveLimitParams(checks[i].params);
      args[a++] = ALGORITHM_CODES[params.algorithm].num;
      args[a++] = params.limit;
      args[a++] = params.windowMs;
      args[a++] = params.burst;
      args[a++] = params.shaping ? 1 : 0;
    }
    const reply = (await this.run(n + (hasQuota ? 1 : 0), args)) as number[];

    const code = CODES[reply[0]];
    const nowMs = reply[1];
    const allowed = code === 'VALID';
    const limits: LimitOutcome[] = new Array(n);
    let retryAfterMs = 0;
    let delayMs = 0;
    let neverFits = false;
    for (let i = 0; i < n; i++) {
      const o = 5 + i * 5;
      const limitAllowed = reply[o] === 1;
      const limitNeverFits = reply[o + 3] === -1;
      const retry = limitNeverFits ? Infinity : reply[o + 3];
      const delay = reply[o + 4];
      limits[i] = {
        name: checks[i].name,
        limit: resolveLimitParams(checks[i].params).limit,
        allowed: limitAllowed,
        remaining: reply[o + 1],
        resetMs: reply[o + 2],
        retryAfterMs: retry,
        delayMs: delay,
        neverFits: limitNeverFits,
      };
      if (!limitAllowed) {
        if (limitNeverFits) neverFits = true;
        if (retry > retryAfterMs) retryAfterMs = retry;
      } else if (delay > delayMs) {
        delayMs = delay;
      }
    }
    const result: CheckResult = { allowed, code, limits, retryAfterMs, neverFits, delayMs: allowed ? delayMs : 0, nowMs };
    if (quota !== undefined) {
      const resetAt = reply[4];
      result.quota = { limit: reply[2], remaining: reply[3], resetAt };
      if (code === 'QUOTA_EXCEEDED') {
        result.neverFits = cost > quota.limit;
        result.retryAfterMs = result.neverFits ? Infinity : resetAt - nowMs;
      }
    }
    return result;
  }

  /** Counts one `invalid` outcome in the same minute buckets the check script meters into. */
  async recordInvalid(meter: MeterTarget, nowMs?: number): Promise<void> {
    const nowArg = this.nowArg(nowMs);
    await this.run(0, [nowArg, 1, 0, '0', '', '', '', this.prefix + meter.keyPrefix, meter.member, 'i']);
  }

  private nowArg(nowMs: number | undefined): string {
    if (nowMs === undefined) return '';
    if (!this.testClock) throw new InvalidLimitParamsError('nowMs', 'is only accepted by a store built with testClock: true');
    if (!Number.isInteger(nowMs) || nowMs < 0) throw new InvalidLimitParamsError('nowMs', 'must be a non-negative integer');
    return String(nowMs);
  }

  private async run(numKeys: number, args: (string | number)[]): Promise<unknown> {
    try {
      return await this.redis.evalsha(SCRIPT_SHA, numKeys, ...args);
    } catch (err) {
      // After a restart, failover or SCRIPT FLUSH the server forgets the script: load it and retry once.
      if (!isNoScript(err)) throw err;
      await this.redis.script('LOAD', CHECK_SCRIPT);
      return this.redis.evalsha(SCRIPT_SHA, numKeys, ...args);
    }
  }
}

/** Records an `invalid` verification (unknown/disabled/expired key) in the usage buckets, one call. */
export function recordInvalid(store: RedisStore, meter: MeterTarget, nowMs?: number): Promise<void> {
  return store.recordInvalid(meter, nowMs);
}
