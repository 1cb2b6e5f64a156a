import type { RedisScriptClient } from './redis-store';

/**
 * One request's reply from the check script: little-endian doubles, read with
 * `readDoubleLE(8 * i)` (see redis-check-script.ts). Usually a view into the data read from the
 * socket, not a copy: read it, then let it go.
 */
export type ScriptReply = Buffer;

/** The script's reply for a request it could not decide: {-1, message}. */
export class ScriptRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptRequestError';
  }
}

interface Waiter {
  resolve(reply: ScriptReply): void;
  reject(error: unknown): void;
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/**
 * Sends the check script's requests in as few EVALSHAs as the event loop allows: the requests
 * made in one event-loop turn (say, every HTTP request a busy server parsed in one poll phase)
 * leave together in one EVALSHA when the turn ends (setImmediate), in slices of at most
 * `maxBatch`. Redis decides them one after another, in order, each as if it were alone.
 *
 * Why: on a busy guard the per-command work dominates what a request costs beyond the HTTP server
 * itself: ioredis builds, writes and parses a command per request, and Redis parses it, looks the
 * script up and runs it. A batch pays that once (bench/probes/redis-command-cost.ts measures the
 * client's side; bench/probes/script-instructions.sh Redis', −39 % per decision in batches of 16).
 * A request waits at most for the rest of the turn it was made in (for a lone
 * request, next to nothing), and nothing is timed per request: one setImmediate per batch.
 *
 * A batch is one EVALSHA with few arguments: its distinct keys, each once (the requests of one
 * API key name the same identity hash again and again), and one binary argument, every request's
 * bytes one after another. Each request names its keys by their index in the batch's KEYS,
 * which run() writes into the request's bytes. ioredis and Redis pay per argument (the client
 * formats each, Redis parses and copies each into a Lua string): three keys and an argument per
 * request made most of RedisStore.check's Node cost before this shape (docs/engine.md, Batching).
 *
 * Every request of a batch is still atomic on its own, and a request that fails in the script
 * (say a key of the wrong type) fails alone (ScriptRequestError). A batch that fails as a whole
 * (connection lost, timeout) fails each of its requests, as separate commands would have.
 */
export class ScriptBatcher {
  private keys: string[] = [];
  /** Index (1-based, as Lua's KEYS) of each key of the batch being gathered. */
  private keyIndex = new Map<string, number>();
  private blobs: Buffer[] = [];
  private waiters: Waiter[] = [];
  private flushScheduled = false;
  /** The SCRIPT LOAD in flight after a NOSCRIPT, shared by every batch that hit it. */
  private loading: Promise<unknown> | undefined;

  constructor(
    private readonly redis: RedisScriptClient,
    private readonly sha: string,
    private readonly script: string,
    /** At most this many requests per EVALSHA; 1 sends each request at once, on its own. */
    private readonly maxBatch: number,
  ) {}

  /**
   * Queues one request and resolves with its reply. For each `keys[j]`, writes the key's index in
   * the batch's KEYS as a little-endian double at byte `keyAt[j]` of `blob`, then queues the blob.
   * Reads `keys` and `keyAt` before returning and keeps neither (callers may reuse them).
   */
  run(blob: Buffer, keys: readonly string[], keyAt: readonly number[]): Promise<ScriptReply> {
    return new Promise<ScriptReply>((resolve, reject) => {
      const keyIndex = this.keyIndex;
      for (let j = 0; j < keys.length; j++) {
        const key = keys[j];
        let index = keyIndex.get(key);
        if (index === undefined) {
          index = this.keys.push(key);
          keyIndex.set(key, index);
        }
        blob.writeDoubleLE(index, keyAt[j]);
      }
      this.blobs.push(blob);
      this.waiters.push({ resolve, reject });
      if (this.waiters.length >= this.maxBatch) {
        this.flush();
      } else if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(this.endTurn);
      }
    });
  }

  private readonly endTurn = (): void => {
    this.flushScheduled = false;
    this.flush();
  };

  private flush(): void {
    if (this.waiters.length === 0) return;
    const keys = this.keys;
    const blobs = this.blobs;
    const waiters = this.waiters;
    this.keys = [];
    this.keyIndex = new Map();
    this.blobs = [];
    this.waiters = [];
    this.send(keys, blobs.length === 1 ? blobs[0] : Buffer.concat(blobs), waiters, false);
  }

  private send(keys: string[], arg: Buffer, waiters: Waiter[], retried: boolean): void {
    this.evalsha(keys, arg).then(
      (replies) => settle(replies as unknown[], waiters),
      (err: unknown) => {
        // After a restart, failover or SCRIPT FLUSH the server forgets the script: load it and retry once.
        if (!retried && isNoScript(err)) {
          this.loadScript().then(
            () => this.send(keys, arg, waiters, true),
            (loadErr: unknown) => rejectAll(waiters, loadErr),
          );
        } else {
          rejectAll(waiters, err);
        }
      },
    );
  }

  /** Undecoded (callBuffer): the replies are binary strings, which a decoding EVALSHA would mangle. */
  private evalsha(keys: string[], arg: Buffer): Promise<unknown> {
    return keys.length === 0 ? this.redis.callBuffer('EVALSHA', this.sha, 0, arg) : this.redis.callBuffer('EVALSHA', this.sha, keys.length, ...keys, arg);
  }

  /** One SCRIPT LOAD at a time: every batch that hit NOSCRIPT meanwhile waits for the same one. */
  private loadScript(): Promise<unknown> {
    if (this.loading === undefined) {
      const clear = () => {
        this.loading = undefined;
      };
      this.loading = this.redis.script('LOAD', this.script);
      this.loading.then(clear, clear);
    }
    return this.loading;
  }
}

function settle(replies: unknown[], waiters: Waiter[]): void {
  if (!Array.isArray(replies) || replies.length !== waiters.length) {
    rejectAll(waiters, new ScriptRequestError(`the check script answered ${Array.isArray(replies) ? replies.length : typeof replies} replies for ${waiters.length} requests`));
    return;
  }
  for (let i = 0; i < waiters.length; i++) {
    const reply = replies[i];
    if (Buffer.isBuffer(reply)) waiters[i].resolve(reply);
    else if (Array.isArray(reply) && reply[0] === -1) waiters[i].reject(new ScriptRequestError(String(reply[1])));
    else waiters[i].reject(new ScriptRequestError(`the check script answered ${typeof reply} for a request`));
  }
}

function rejectAll(waiters: Waiter[], err: unknown): void {
  for (const waiter of waiters) waiter.reject(err);
}
