import { Global, Module } from '@nestjs/common';
import type { Env } from './env';

export const ENV = Symbol('ENV');

/** Makes the env parsed at boot injectable as `@Inject(ENV) env: Env`. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(env: Env) {
    return { module: ConfigModule, providers: [{ provide: ENV, useValue: env }], exports: [ENV] };
  }
}
