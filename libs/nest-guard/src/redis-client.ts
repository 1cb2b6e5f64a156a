import Redis from 'ioredis';
import type { RedisScriptClient } from '@tollgate/rate-limit';

// ioredis types listeners with any[]; the events we use are 'message', 'ready', 'close', 'error'.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type EventListener = (...args: any[]) => void;

/**
 * The part of an ioredis client the guard uses, typed structurally so a client from any copy of
 * ioredis 5 (each workspace may have its own) fits.
 */
export interface GuardRedisClient extends RedisScriptClient {
  readonly status: string;
  ping(): Promise<unknown>;
  publish(channel: string, message: string): Promise<number>;
  subscribe(channel: string): Promise<unknown>;
  duplicate(override?: { autoResubscribe?: boolean }): GuardRedisClient;
  on(event: string, listener: EventListener): unknown;
  removeListener(event: string, listener: EventListener): unknown;
  quit(): Promise<unknown>;
  disconnect(): void;
}

/**
 * An ioredis client whose commands issued in one event-loop turn leave in few socket writes: the
 * turn's first command at once, the rest together (in slices of at most MAX_CORKED) when the
 * turn's callbacks are done.
 *
 * Before the store batched its checks (RedisStore's maxBatch), each request's EVALSHA was its own
 * `write` syscall, and each woke an idle Redis (and Redis' answer woke Node again): in CPU profiles
 * of the guard bench those writes were the largest single cost of a guarded request. The store now
 * sends a turn's checks as one EVALSHA; this keeps the turn's other commands (a second slice of a
 * big batch, recordOutcome calls, pings) together. The first command of a turn is written as usual
 * (so Redis starts on it while Node parses the turn's other requests), then the socket is corked
 * and one setImmediate per turn (not per command) uncorks it, so the turn's later commands go out
 * in one writev and Redis answers them in one write. Nothing waits past the current turn; the
 * order of commands and replies is unchanged. Unlike ioredis' enableAutoPipelining, which builds
 * a Pipeline per batch, holds every command until the turn ends and re-dispatches each reply
 * (~20 % slower than no batching in a one-off run of the guard bench), this adds no work per command.
 */
export class WriteCoalescingRedis extends Redis {
  /**
   * At most this many commands wait in one cork: a burst parsed in one turn (hundreds of requests)
   * then reaches Redis in slices while Node parses the rest, instead of all at the end of the turn
   * (time that counts against each call's 50 ms deadline).
   */
  static readonly MAX_CORKED = 32;
  private corked: { cork(): void; uncork(): void } | undefined;
  private corkedCount = 0;
  private readonly uncork = (): void => {
    const stream = this.corked;
    this.corked = undefined;
    this.corkedCount = 0;
    stream?.uncork();
  };

  override sendCommand(...args: Parameters<Redis['sendCommand']>): ReturnType<Redis['sendCommand']> {
    const corked = this.corked;
    if (corked !== undefined) {
      const sent = super.sendCommand(...args);
      if (++this.corkedCount >= WriteCoalescingRedis.MAX_CORKED) {
        // Flush this slice now; the turn's later commands start a new one (same setImmediate).
        corked.uncork();
        corked.cork();
        this.corkedCount = 0;
      }
      return sent;
    }
    if (this.status !== 'ready') return super.sendCommand(...args);
    const stream = this.stream;
    const sent = super.sendCommand(...args);
    if (stream.writable) {
      stream.cork();
      this.corked = stream;
      setImmediate(this.uncork);
    }
    return sent;
  }
}

/**
 * The connection the guard opens from a URL: no offline queue, so a command while Redis is down
 * fails at once instead of waiting and being charged late; quick reconnects so recovery is fast;
 * the commands of one event-loop turn in few socket writes (WriteCoalescingRedis).
 */
export function createGuardRedis(url: string, connectionName = 'tollgate-guard'): Redis {
  const redis = new WriteCoalescingRedis(url, {
    connectionName,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(50 * times, 500),
  });
  // Connection errors surface as failed commands (and the breaker); this only keeps them off stderr.
  redis.on('error', () => undefined);
  return redis;
}

/** Resolves when the client is ready, or after `timeoutMs` anyway (the fail modes cover a down Redis). */
export function waitForReady(redis: GuardRedisClient, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const done = (ready: boolean) => {
      clearTimeout(timer);
      redis.removeListener('ready', onReady);
      resolve(ready);
    };
    const onReady = () => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.on('ready', onReady);
  });
}
