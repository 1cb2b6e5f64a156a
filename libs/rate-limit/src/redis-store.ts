import { createHash } from 'node:crypto';
import { InvalidLimitParamsError } from './errors';
import { ALGORITHM_CODES, identityStateKey, limitStateField, limitStateKey } from './redis-key-layout';
import { CHECK_SCRIPT } from './redis-check-script';
import { ScriptBatcher, type ScriptReply } from './redis-script-batch';
import { resolveLimitParams } from './resolve-limit-params';
import type { CheckCode, CheckRequest, CheckResult, LimitCheck, LimitOutcome, MeterOutcome, MeterTarget, QuotaCheck, RateLimitStore } from './types';
import { validateCost, validateIdentity, validateQuotaCheck } from './validate-limit-params';

/**
 * The ioredis commands the store uses; an ioredis `Redis` (v5 or v6) satisfies it. The store
 * passes its keys as strings and its requests as one binary Buffer per EVALSHA.
 */
export interface RedisScriptClient {
  /**
   * A command whose bulk-string replies stay Buffers (the store sends EVALSHA through it): the
   * check script answers each request with a binary string of doubles, which a decoding call
   * would read as UTF-8 and mangle.
   */
  callBuffer(command: string, ...args: (string | number | Buffer)[]): Promise<unknown>;
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
  /**
   * At most this many requests share one EVALSHA (default 32): requests made in the same
   * event-loop turn are sent together when it ends (redis-script-batch.ts). 1 sends each request
   * at once in its own EVALSHA.
   */
  maxBatch?: number;
}

const CODES: readonly CheckCode[] = ['VALID', 'RATE_LIMITED', 'QUOTA_EXCEEDED'];
const NO_KEYS: readonly string[] = [];
const NO_KEYS_AT: readonly number[] = [];
const SCRIPT_SHA = createHash('sha1').update(CHECK_SCRIPT).digest('hex');

/** A LimitCheck's key and spec, cached per store (the key carries the store's prefix). */
interface CompiledLimit {
  identity: string;
  name: string;
  input: LimitCheck['params'];
  limit: number;
  key: string;
  /**
   * '<dddddI4c0': key index (0 here: the batch writes it), algorithm code, limit, windowMs, burst,
   * field (see redis-check-script.ts).
   */
  spec: Buffer;
}

/** A QuotaCheck validated once per object and store: its key and header numbers. */
interface CompiledQuota {
  identity: string;
  limitInput: number;
  period: QuotaCheck['period'];
  resetDayInput: number | undefined;
  key: string;
  limit: number;
  /** 0: daily; 1..28: monthly from that day (the script's header field). */
  resetDay: number;
}

/** A MeterTarget's encoded tail of the script argument ('<I4c0I4c0'), once per object and store. */
interface CompiledMeter {
  keyPrefix: string;
  member: string;
  tail: Buffer;
}

/** The limit-count header field of a record-only call: which outcome to count. */
const OUTCOME_CODES: Readonly<Record<MeterOutcome, number>> = { invalid: -1, valid: -2, rateLimited: -3, quotaExceeded: -4 };

/**
 * '<dddddddd': the request's length in bytes, cost, limit count, nowMs, TTL padding, quota limit,
 * quota reset day, quota key index (written by the batch; 0: no quota).
 */
const HEADER_BYTES = 64;
/** Where the header holds the quota key's index. */
const QUOTA_KEY_AT = 56;

function writeHeader(blob: Buffer, cost: number, n: number, now: number, pad: number, quotaLimit: number, resetDay: number): void {
  blob.writeDoubleLE(blob.length, 0);
  blob.writeDoubleLE(cost, 8);
  blob.writeDoubleLE(n, 16);
  blob.writeDoubleLE(now, 24);
  blob.writeDoubleLE(pad, 32);
  blob.writeDoubleLE(quotaLimit, 40);
  blob.writeDoubleLE(resetDay, 48);
  blob.writeDoubleLE(0, QUOTA_KEY_AT);
}

/** '<I4c0I4c0': meter bucket prefix, member. */
function encodeMeter(prefix: string, member: string): Buffer {
  const p = Buffer.byteLength(prefix);
  const m = Buffer.byteLength(member);
  const tail = Buffer.allocUnsafe(8 + p + m);
  tail.writeUInt32LE(p, 0);
  tail.write(prefix, 4);
  tail.writeUInt32LE(m, 4 + p);
  tail.write(member, 8 + p);
  return tail;
}

/**
 * Redis-backed store: one EVALSHA decides all of a request's limits and its quota atomically on
 * Redis time, charges all or none, and meters the outcome. Requests made in the same event-loop
 * turn share that EVALSHA (ScriptBatcher), each still decided atomically and in order.
 */
export class RedisStore implements RateLimitStore {
  readonly prefix: string;
  private readonly testClock: boolean;
  private readonly ttlPadding: number;
  private readonly compiled = new WeakMap<LimitCheck, CompiledLimit>();
  private readonly quotas = new WeakMap<QuotaCheck, CompiledQuota>();
  private readonly meters = new WeakMap<MeterTarget, CompiledMeter>();
  private readonly batcher: ScriptBatcher;
  /**
   * A request's keys and where its bytes take each key's index, filled per check and read by
   * batcher.run before it returns (it keeps neither), so one pair serves every call.
   */
  private readonly scratchKeys: string[] = [];
  private readonly scratchKeyAt: number[] = [];

  constructor(
    redis: RedisScriptClient,
    opts: RedisStoreOptions = {},
  ) {
    this.prefix = opts.prefix ?? 'tg:';
    this.testClock = opts.testClock === true;
    this.ttlPadding = this.testClock ? (opts.testTtlPaddingMs ?? 60_000) : 0;
    const maxBatch = opts.maxBatch ?? 32;
    if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > 1000) throw new InvalidLimitParamsError('maxBatch', 'must be an integer 1..1000');
    this.batcher = new ScriptBatcher(redis, SCRIPT_SHA, CHECK_SCRIPT, maxBatch);
  }

  /** SHA1 of the check script, as EVALSHA uses it. */
  static readonly scriptSha = SCRIPT_SHA;

  /**
   * Not an async function: its suspended frame (every local below) would be allocated per call;
   * the reply is read in one continuation instead. Errors still arrive as rejections.
   */
  check(req: CheckRequest): Promise<CheckResult> {
    try {
      return this.queueCheck(req);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private queueCheck(req: CheckRequest): Promise<CheckResult> {
    const now = this.clockArg(req.nowMs);
    const cost = validateCost(req.cost);
    const checks = req.limits;
    const n = checks.length;
    const quota = req.quota === undefined ? undefined : this.compileQuota(req.quota);
    const meter = req.meter === undefined ? undefined : this.compileMeter(req.meter);
    // The request's bytes (see redis-check-script.ts): a header of doubles, each limit's cached
    // spec, then the meter target's cached tail. Its keys (each limit's state key: its identity
    // hash, or a sliding log's list; then the quota's identity hash) go to the batch, which writes
    // their indexes into the header's and the specs' key slots.
    const keys = this.scratchKeys;
    const keyAt = this.scratchKeyAt;
    keys.length = 0;
    keyAt.length = 0;
    const compiled: CompiledLimit[] = new Array(n);
    let size = HEADER_BYTES;
    for (let i = 0; i < n; i++) {
      const c = this.compile(checks[i]);
      compiled[i] = c;
      keys.push(c.key);
      keyAt.push(size);
      size += c.spec.length;
    }
    if (quota !== undefined) {
      keys.push(quota.key);
      keyAt.push(QUOTA_KEY_AT);
    }
    if (meter !== undefined) size += meter.tail.length;
    const blob = Buffer.allocUnsafe(size);
    writeHeader(blob, cost, n, now, this.ttlPadding, quota === undefined ? 0 : quota.limit, quota === undefined ? 0 : quota.resetDay);
    let at = HEADER_BYTES;
    for (let i = 0; i < n; i++) at += compiled[i].spec.copy(blob, at);
    if (meter !== undefined) meter.tail.copy(blob, at);
    // Doubles: reply.readDoubleLE(8 * i) is the script's i-th number (redis-check-script.ts).
    return this.batcher.run(blob, keys, keyAt).then((reply) => readReply(reply, compiled, quota, cost));
  }

  /**
   * The state key and script spec of one limit, built once per LimitCheck object (callers reuse
   * them from a cached key entry) and rebuilt if the object's identity, name or params change.
   */
  private compile(check: LimitCheck): CompiledLimit {
    const cached = this.compiled.get(check);
    if (cached !== undefined && cached.identity === check.identity && cached.name === check.name && cached.input === check.params) {
      return cached;
    }
    const params = resolveLimitParams(check.params);
    validateIdentity('identity', check.identity);
    const field = limitStateField(check.name, params.algorithm);
    const fieldBytes = Buffer.byteLength(field);
    const spec = Buffer.alloc(44 + fieldBytes);
    spec.writeDoubleLE(0, 0);
    spec.writeDoubleLE(params.shaping ? 7 : ALGORITHM_CODES[params.algorithm].num, 8);
    spec.writeDoubleLE(params.limit, 16);
    spec.writeDoubleLE(params.windowMs, 24);
    spec.writeDoubleLE(params.burst, 32);
    spec.writeUInt32LE(fieldBytes, 40);
    spec.write(field, 44);
    const c: CompiledLimit = {
      identity: check.identity,
      name: check.name,
      input: check.params,
      limit: params.limit,
      key: limitStateKey(this.prefix, check.identity, check.name, params.algorithm),
      spec,
    };
    this.compiled.set(check, c);
    return c;
  }

  /** The quota's key and header numbers, validated once per QuotaCheck object (rebuilt if its fields change). */
  private compileQuota(quota: QuotaCheck): CompiledQuota {
    const cached = this.quotas.get(quota);
    if (
      cached !== undefined &&
      cached.identity === quota.identity &&
      cached.limitInput === quota.limit &&
      cached.period === quota.period &&
      cached.resetDayInput === quota.resetDay
    ) {
      return cached;
    }
    const checked = validateQuotaCheck(quota);
    const c: CompiledQuota = {
      identity: quota.identity,
      limitInput: quota.limit,
      period: quota.period,
      resetDayInput: quota.resetDay,
      key: identityStateKey(this.prefix, checked.identity),
      limit: checked.limit,
      resetDay: checked.period === 'day' ? 0 : checked.resetDay,
    };
    this.quotas.set(quota, c);
    return c;
  }

  /** The meter target's encoded bytes, once per MeterTarget object (rebuilt if its fields change). */
  private compileMeter(meter: MeterTarget): CompiledMeter {
    const cached = this.meters.get(meter);
    if (cached !== undefined && cached.keyPrefix === meter.keyPrefix && cached.member === meter.member) return cached;
    if (typeof meter.keyPrefix !== 'string') throw new InvalidLimitParamsError('meter.keyPrefix', 'must be a string');
    if (typeof meter.member !== 'string') throw new InvalidLimitParamsError('meter.member', 'must be a string');
    const c: CompiledMeter = { keyPrefix: meter.keyPrefix, member: meter.member, tail: encodeMeter(this.prefix + meter.keyPrefix, meter.member) };
    this.meters.set(meter, c);
    return c;
  }

  /**
   * Counts one outcome (`valid`, `rateLimited`, `quotaExceeded` or `invalid`) in the same minute
   * buckets the check script meters into, in one call and without touching any limit: for
   * decisions taken elsewhere (e.g. a guard deciding locally while Redis was unreachable).
   */
  async recordOutcome(meter: MeterTarget, outcome: MeterOutcome, nowMs?: number, count = 1): Promise<void> {
    const code = OUTCOME_CODES[outcome];
    if (typeof code !== 'number') throw new InvalidLimitParamsError('outcome', 'must be valid, rateLimited, quotaExceeded or invalid');
    if (!Number.isInteger(count) || count < 1 || count > 1_000_000_000) throw new InvalidLimitParamsError('count', 'must be an integer 1..1e9');
    const tail = this.compileMeter(meter).tail;
    const blob = Buffer.allocUnsafe(HEADER_BYTES + tail.length);
    writeHeader(blob, count, code, this.clockArg(nowMs), this.ttlPadding, 0, 0);
    tail.copy(blob, HEADER_BYTES);
    await this.batcher.run(blob, NO_KEYS, NO_KEYS_AT);
  }

  /** Counts one `invalid` outcome: recordOutcome(meter, 'invalid', nowMs). */
  recordInvalid(meter: MeterTarget, nowMs?: number): Promise<void> {
    return this.recordOutcome(meter, 'invalid', nowMs);
  }

  /** -1 for Redis TIME, or the test clock's nowMs. */
  private clockArg(nowMs: number | undefined): number {
    if (nowMs === undefined) return -1;
    if (!this.testClock) throw new InvalidLimitParamsError('nowMs', 'is only accepted by a store built with testClock: true');
    if (!Number.isInteger(nowMs) || nowMs < 0) throw new InvalidLimitParamsError('nowMs', 'must be a non-negative integer');
    return nowMs;
  }
}

/** The check script's reply to one request (doubles: see redis-check-script.ts) as a CheckResult. */
function readReply(reply: ScriptReply, compiled: readonly CompiledLimit[], quota: CompiledQuota | undefined, cost: number): CheckResult {
  const n = compiled.length;
  const code = CODES[reply.readDoubleLE(0)];
  const nowMs = reply.readDoubleLE(8);
  const allowed = code === 'VALID';
  const limits: LimitOutcome[] = new Array(n);
  let retryAfterMs = 0;
  let delayMs = 0;
  let neverFits = false;
  let o = quota === undefined ? 2 : 5;
  for (let i = 0; i < n; i++, o += 5) {
    const at = 8 * o;
    const limitAllowed = reply.readDoubleLE(at) === 1;
    const retryOrNever = reply.readDoubleLE(at + 24);
    const limitNeverFits = retryOrNever === -1;
    const retry = limitNeverFits ? Infinity : retryOrNever;
    const delay = reply.readDoubleLE(at + 32);
    limits[i] = {
      name: compiled[i].name,
      limit: compiled[i].limit,
      allowed: limitAllowed,
      remaining: reply.readDoubleLE(at + 8),
      resetMs: reply.readDoubleLE(at + 16),
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
    const resetAt = reply.readDoubleLE(32);
    result.quota = { limit: reply.readDoubleLE(16), remaining: reply.readDoubleLE(24), resetAt };
    if (code === 'QUOTA_EXCEEDED') {
      result.neverFits = cost > quota.limit;
      result.retryAfterMs = result.neverFits ? Infinity : resetAt - nowMs;
    }
  }
  return result;
}

/** Records an `invalid` verification (unknown/disabled/expired key) in the usage buckets, one call. */
export function recordInvalid(store: RedisStore, meter: MeterTarget, nowMs?: number): Promise<void> {
  return store.recordOutcome(meter, 'invalid', nowMs);
}

/** Records one outcome decided outside the check script (e.g. locally) in the usage buckets, one call. */
export function recordOutcome(store: RedisStore, meter: MeterTarget, outcome: MeterOutcome, nowMs?: number, count = 1): Promise<void> {
  return store.recordOutcome(meter, outcome, nowMs, count);
}
