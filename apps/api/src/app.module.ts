import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from './config/config.module';
import type { Env } from './config/env';
import { HealthModule } from './health/health.module';
import { InfraModule } from './infra/infra.module';
import { OpenApiModule } from './openapi/openapi.module';

@Module({})
export class AppModule {
  static forRoot(env: Env): DynamicModule {
    return {
      module: AppModule,
      imports: [ConfigModule.forRoot(env), InfraModule, HealthModule, OpenApiModule],
    };
  }
}
