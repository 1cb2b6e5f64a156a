import { DynamicModule, Module } from '@nestjs/common';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { ConfigModule } from './config/config.module';
import type { Env } from './config/env';
import { HealthModule } from './health/health.module';
import { InfraModule } from './infra/infra.module';
import { KeysModule } from './keys/keys.module';
import { OpenApiModule } from './openapi/openapi.module';
import { PlansModule } from './plans/plans.module';
import { UsageModule } from './usage/usage.module';
import { VerifyModule } from './verify/verify.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class AppModule {
  static forRoot(env: Env): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(env), InfraModule, AuthModule, AuditModule, HealthModule, OpenApiModule, PlansModule, KeysModule, VerifyModule, WebhooksModule, UsageModule],
    };
  }
}
