import type { GuardRedisClient } from './redis-client';

/**
 * What changed: one key, every key of a plan, or anything (e.g. after a bulk import). `origin`:
 * the id of the verifier that sent it (KeyVerifier.broadcastInvalidation), so that verifier skips
 * its own echo; messages without one (publishInvalidation from an admin connection) apply everywhere.
 */
export type InvalidationMessage = ({ kind: 'key'; id: string } | { kind: 'plan'; id: string } | { kind: 'all' }) & { origin?: string };

export function invalidationChannel(prefix: string): string {
  return `${prefix}invalidate`;
}

/**
 * Tells every instance to drop what it cached about a key/plan. Call it after the change is
 * committed, so an instance that reloads sees the new row. Resolves to the number of receivers.
 */
export function publishInvalidation(
  redis: { publish(channel: string, message: string): Promise<number> },
  prefix: string,
  message: InvalidationMessage,
): Promise<number> {
  return redis.publish(invalidationChannel(prefix), JSON.stringify(message));
}

/** The message, or undefined when it is not one of ours. */
export function parseInvalidation(raw: string): InvalidationMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { kind, id, origin } = value as { kind?: unknown; id?: unknown; origin?: unknown };
  const from = typeof origin === 'string' && origin.length > 0 ? { origin } : undefined;
  if (kind === 'all') return { kind, ...from };
  if ((kind === 'key' || kind === 'plan') && typeof id === 'string' && id.length > 0) return { kind, id, ...from };
  return undefined;
}

export interface InvalidationSubscriberHandlers {
  onMessage(message: InvalidationMessage): void;
  /** Called each time the subscription is (re)confirmed: messages may have been missed before. */
  onSubscribed(): void;
  onError(err: unknown): void;
}

/**
 * Listens on `<prefix>invalidate` over a connection of its own (a subscribed connection can run
 * nothing else). Subscribes again on every `ready`, i.e. after each reconnect.
 */
export class InvalidationSubscriber {
  private subscribed = false;
  private closed = false;

  constructor(
    private readonly connection: GuardRedisClient,
    private readonly channel: string,
    private readonly handlers: InvalidationSubscriberHandlers,
  ) {}

  /** Whether messages are being received right now. */
  get live(): boolean {
    return this.subscribed && this.connection.status === 'ready';
  }

  start(): void {
    this.connection.on('message', this.handleMessage);
    this.connection.on('ready', this.handleReady);
    this.connection.on('close', this.handleClose);
    if (this.connection.status === 'ready') this.handleReady();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribed = false;
    this.connection.removeListener('message', this.handleMessage);
    this.connection.removeListener('ready', this.handleReady);
    this.connection.removeListener('close', this.handleClose);
    try {
      await this.connection.quit();
    } catch {
      this.connection.disconnect();
    }
  }

  private readonly handleMessage = (channel: string, raw: string): void => {
    if (channel !== this.channel) return;
    const message = parseInvalidation(raw);
    if (message !== undefined) this.handlers.onMessage(message);
  };

  private readonly handleReady = (): void => {
    this.connection.subscribe(this.channel).then(
      () => {
        if (this.closed) return;
        this.subscribed = true;
        this.handlers.onSubscribed();
      },
      (err: unknown) => this.handlers.onError(err),
    );
  };

  private readonly handleClose = (): void => {
    this.subscribed = false;
  };
}
