import { Injectable, Logger } from '@nestjs/common';
import { RedisConnections } from './redis.provider';

export type Invalidation = { kind: 'key'; id: string } | { kind: 'plan'; id: string } | { kind: 'all' };

/**
 * After an admin change commits, every API instance must drop its cached view of the key or plan:
 * we publish on `<prefix>invalidate`, which each instance's key cache subscribes to.
 */
@Injectable()
export class LimitInvalidation {
  private readonly logger = new Logger('LimitInvalidation');

  constructor(private readonly redis: RedisConnections) {}

  get channel(): string {
    return `${this.redis.prefix}invalidate`;
  }

  async publish(message: Invalidation): Promise<void> {
    try {
      await this.redis.client.publish(this.channel, JSON.stringify(message));
    } catch (error) {
      // The change is committed; caches also expire on their own, so this is logged, not thrown.
      this.logger.error(`could not publish invalidation ${JSON.stringify(message)}: ${(error as Error).message}`);
    }
  }
}
