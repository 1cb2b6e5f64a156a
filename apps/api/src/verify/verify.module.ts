import { Module } from '@nestjs/common';
import { TollgateGuardModule } from '@tollgate/nest-guard';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';
import { DemoController } from '../demo/demo.controller';
import { KeysModule } from '../keys/keys.module';
import { KeysRepository } from '../keys/keys.repository';
import { WebhookEvents } from '../webhooks/webhook-events';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { KeyStateController } from './key-state.controller';
import { VerifyController } from './verify.controller';

/**
 * One KeyVerifier per process, shared by `POST /v1/keys/verify` and the guarded demo route: one
 * key cache, one set of Redis connections, one live-invalidation subscription.
 */
@Module({
  imports: [
    KeysModule,
    TollgateGuardModule.forRootAsync({
      imports: [KeysModule, WebhooksModule],
      inject: [ENV, KeysRepository, WebhookEvents],
      useFactory: (env: Env, keys: KeysRepository, events: WebhookEvents) => ({
        redis: env.REDIS_URL,
        prefix: env.REDIS_KEY_PREFIX,
        storeTimeoutMs: env.TOLLGATE_STORE_TIMEOUT_MS,
        lookup: (secretHash: string) => keys.findForVerification(secretHash),
        onDecision: events.onDecision,
        // Every guarded answer carries rate-limit headers, 401 included: without a valid key the
        // caller's quota is zero requests.
        defaultPolicy: [{ name: 'unauthenticated', limit: 0, windowMs: 1000 }],
      }),
    }),
  ],
  controllers: [VerifyController, KeyStateController, DemoController],
})
export class VerifyModule {}
