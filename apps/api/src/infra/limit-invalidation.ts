import { Injectable, Logger } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { KeyVerifier, publishInvalidation, type InvalidationMessage } from '@tollgate/nest-guard';
import { RedisConnections } from './redis.provider';

/**
 * After an admin change commits, every API instance must drop its cached view of the key or plan:
 * we publish on the guard's invalidation channel, which each instance's key cache subscribes to.
 * This instance's own verifier drops it first, synchronously: its pub/sub echo arrives a little
 * later, and a request right after the admin call's answer must already see the change here.
 */
@Injectable()
export class LimitInvalidation {
  private readonly logger = new Logger('LimitInvalidation');
  private verifier: KeyVerifier | null | undefined;

  constructor(
    private readonly redis: RedisConnections,
    private readonly modules: ModuleRef,
  ) {}

  async publish(message: InvalidationMessage): Promise<void> {
    try {
      const verifier = this.localVerifier();
      // broadcastInvalidation applies it here, then publishes it tagged so this instance skips the echo.
      if (verifier !== null) await verifier.broadcastInvalidation(message);
      else await publishInvalidation(this.redis.client, this.redis.prefix, message);
    } catch (error) {
      // The change is committed; caches also expire on their own, so this is logged, not thrown.
      this.logger.error(`could not publish invalidation ${JSON.stringify(message)}: ${(error as Error).message}`);
    }
  }

  /** The process's KeyVerifier (the guard module's), looked up once at first use: it is built after this. */
  private localVerifier(): KeyVerifier | null {
    if (this.verifier === undefined) {
      try {
        this.verifier = this.modules.get(KeyVerifier, { strict: false });
      } catch {
        this.verifier = null;
      }
    }
    return this.verifier ?? null;
  }
}
