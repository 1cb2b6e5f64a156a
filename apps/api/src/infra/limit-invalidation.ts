import { Injectable, Logger } from '@nestjs/common';
import { publishInvalidation, type InvalidationMessage } from '@tollgate/nest-guard';
import { RedisConnections } from './redis.provider';

/**
 * After an admin change commits, every API instance must drop its cached view of the key or plan:
 * we publish on the guard's invalidation channel, which each instance's key cache subscribes to.
 */
@Injectable()
export class LimitInvalidation {
  private readonly logger = new Logger('LimitInvalidation');

  constructor(private readonly redis: RedisConnections) {}

  async publish(message: InvalidationMessage): Promise<void> {
    try {
      await publishInvalidation(this.redis.client, this.redis.prefix, message);
    } catch (error) {
      // The change is committed; caches also expire on their own, so this is logged, not thrown.
      this.logger.error(`could not publish invalidation ${JSON.stringify(message)}: ${(error as Error).message}`);
    }
  }
}
