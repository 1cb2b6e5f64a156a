import { Controller, Get, Module, UseFilters, UseGuards, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { RateLimitCost, RateLimits, Verification } from './decorators';
import { GuardRejectionFilter } from './guard-rejection';
import type { KeyLookup, KeyRecord, VerificationResult } from './key-record';
import { KeyVerifier, sha256Hex } from './key-verifier';
import { TollgateGuard } from './tollgate-guard';
import { TollgateGuardModule, type TollgateGuardModuleOptions } from './tollgate-guard.module';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

@Controller()
@UseGuards(TollgateGuard)
@UseFilters(GuardRejectionFilter)
class GuardedController {
  @Get('echo')
  echo(@Verification() verification: VerificationResult | undefined) {
    return { keyId: verification?.keyId, degraded: verification?.degraded === true };
  }

  @Get('costly')
  @RateLimitCost(5)
  costly() {
    return { ok: true };
  }

  @Get('burst-only')
  @RateLimits('burst')
  burstOnly() {
    return { ok: true };
  }
}

/** No GuardRejectionFilter here: what a host app without one gets from Nest's default filter. */
@Controller('plain')
@UseGuards(TollgateGuard)
class PlainController {
  @Get()
  plain() {
    return { ok: true };
  }
}

/** The app's key table: secret -> record, looked up by hash like the API's Postgres would be. */
export class KeyTable {
  private readonly byHash = new Map<string, KeyRecord>();
  lookups = 0;

  set(secret: string, record: KeyRecord): void {
    this.byHash.set(sha256Hex(secret), record);
  }

  readonly lookup: KeyLookup = async (hash) => {
    this.lookups++;
    return this.byHash.get(hash) ?? null;
  };
}

export interface GuardApp {
  app: NestFastifyApplication;
  url: string;
  verifier: KeyVerifier;
  close(): Promise<void>;
}

/**
 * A real Nest + Fastify app on an ephemeral port, with the guard module configured by `options`:
 * through forRoot, or (`viaAsync`) through forRootAsync with the options injected from another module.
 */
export async function startGuardApp(options: TollgateGuardModuleOptions, viaAsync = false): Promise<GuardApp> {
  @Module({ controllers: [GuardedController, PlainController] })
  class FeatureModule {}

  @Module({ providers: [{ provide: 'GUARD_CONFIG', useValue: options }], exports: ['GUARD_CONFIG'] })
  class ConfigModule {}

  const guardModule = viaAsync
    ? TollgateGuardModule.forRootAsync({ imports: [ConfigModule], inject: ['GUARD_CONFIG'], useFactory: async (config: TollgateGuardModuleOptions) => config })
    : TollgateGuardModule.forRoot(options);

  @Module({})
  class AppModule {
    static forRoot(): DynamicModule {
      return { module: AppModule, imports: [guardModule, FeatureModule] };
    }
  }

  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(), new FastifyAdapter(), { logger: false });
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return {
    app,
    url: `http://127.0.0.1:${address.port}`,
    verifier: app.get(KeyVerifier),
    close: () => app.close(),
  };
}

export function get(url: string, secret?: string, via: 'bearer' | 'x-api-key' = 'bearer'): Promise<Response> {
  const headers: Record<string, string> = {};
  if (secret !== undefined) {
    if (via === 'bearer') headers.authorization = `Bearer ${secret}`;
    else headers['x-api-key'] = secret;
  }
  return fetch(url, { headers });
}

/** Polls until `check` is true; returns the ms it took, or throws after `timeoutMs`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000, stepMs = 5): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return performance.now() - started;
}
