// One benchmark server, run in its own process by bench/suites/guard.ts:
//   node --import tsx bench/guard/server.ts <guarded|unguarded|throttler>
// The same Nest 11 + Fastify app and the same handler as the API's GET /v1/demo/echo, with
//   guarded   — @UseGuards(TollgateGuard), TollgateGuardModule.forRoot on Redis, a fixed key;
//   guarded-unmetered — the same with usage metering off (to price metering);
//   redis-floor — a guard that only awaits one Redis PING (auto-pipelined): the floor any
//               Redis-backed guard stands on, on this machine;
//   crossover — one process, four routes: /v1/demo/echo guarded (metering on),
//               /v1/demo/echo-unmetered guarded by a second verifier with metering off,
//               /v1/demo/echo-unguarded with no guard, and /v1/demo/echo-throttled behind the
//               throttler (the bench's crossovers compare routes of two such processes, so that
//               what each process is worth cancels out);
//   unguarded — no guard at all (the baseline);
//   throttler — @nestjs/throttler's ThrottlerGuard with two named throttlers (burst + sustained)
//               on @nest-lab/throttler-storage-redis.
// Env: REDIS_URL, BENCH_PREFIX (Redis key prefix), BENCH_KEY (the API key secret), BENCH_STORE_MAX_BATCH,
// BENCH_AB_EXTRA_US (see below).
// Prints `READY <port>` once listening; closes the app (and its Redis connections) on SIGTERM.
import 'reflect-metadata';
import { Controller, Get, Inject, Injectable, Module, Req, UseFilters, UseGuards, type DynamicModule, type ExecutionContext } from '@nestjs/common';
import { NestFactory, Reflector } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import Redis from 'ioredis';
import { createHash } from 'node:crypto';
// The built package (dist, compiled by tsc with decorator metadata), as any app would import it:
// tsx/esbuild does not emit decorator metadata, which Nest's constructor injection needs.
import { GuardRejectionFilter, KeyVerifier, TollgateGuard, TollgateGuardModule, sha256Hex, type GuardedRequest, type KeyRecord } from '@tollgate/nest-guard';
import { BENCH_LIMITS, benchKeyRecord } from './limits';

type Mode = 'guarded' | 'guarded-unmetered' | 'crossover' | 'unguarded' | 'throttler' | 'redis-floor';
const mode = process.argv[2] as Mode;
if (!['guarded', 'guarded-unmetered', 'crossover', 'unguarded', 'throttler', 'redis-floor'].includes(mode)) throw new Error(`unknown mode ${process.argv[2]}`);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = process.env.BENCH_PREFIX ?? 'tgbench:guard:';
const KEY = process.env.BENCH_KEY ?? 'tg_bench';
// One-off comparisons only (e.g. BENCH_STORE_MAX_BATCH=1: one EVALSHA per request); the suite leaves it unset.
const MAX_BATCH = process.env.BENCH_STORE_MAX_BATCH === undefined ? undefined : Number(process.env.BENCH_STORE_MAX_BATCH);

// The API's handler, verbatim.
function echo(request: GuardedRequest) {
  const verification = request.tollgate;
  return { ok: true, keyId: verification?.keyId, ownerId: verification?.ownerId ?? null, planId: verification?.planId, at: new Date().toISOString() };
}

@Controller('v1/demo')
@UseFilters(GuardRejectionFilter)
class UnguardedController {
  @Get('echo')
  echo(@Req() request: GuardedRequest) {
    return echo(request);
  }
}

@Controller('v1/demo')
@UseFilters(GuardRejectionFilter)
class GuardedController {
  @Get('echo')
  @UseGuards(TollgateGuard)
  echo(@Req() request: GuardedRequest) {
    return echo(request);
  }
}

const UNMETERED_VERIFIER = Symbol('UNMETERED_VERIFIER');
// Checking the method, not the guard: BENCH_AB_EXTRA_US=5 makes the unmetered route of
// `crossover` spend 5 µs more per request, a known cost the metering crossover must then read.
const EXTRA_US = Number(process.env.BENCH_AB_EXTRA_US ?? 0);

function spin(us: number): void {
  const end = process.hrtime.bigint() + BigInt(Math.round(us * 1000));
  while (process.hrtime.bigint() < end);
}

/** TollgateGuard on the second verifier of `crossover` (metering off); nothing else differs. */
@Injectable()
class UnmeteredTollgateGuard extends TollgateGuard {
  constructor(@Inject(UNMETERED_VERIFIER) verifier: KeyVerifier, @Inject(Reflector) reflector: Reflector) {
    super(verifier, reflector);
  }
}

@Controller('v1/demo')
@UseFilters(GuardRejectionFilter)
class CrossoverController {
  @Get('echo')
  @UseGuards(TollgateGuard)
  echo(@Req() request: GuardedRequest) {
    return echo(request);
  }

  @Get('echo-unmetered')
  @UseGuards(UnmeteredTollgateGuard)
  echoUnmetered(@Req() request: GuardedRequest) {
    if (EXTRA_US > 0) spin(EXTRA_US);
    return echo(request);
  }

  @Get('echo-unguarded')
  echoUnguarded(@Req() request: GuardedRequest) {
    return echo(request);
  }

  @Get('echo-throttled')
  @UseGuards(ThrottlerGuard)
  echoThrottled(@Req() request: GuardedRequest) {
    return echo(request);
  }
}

/** Costs exactly one Redis round trip per request, and nothing else. */
class RedisPingGuard {
  private static readonly redis = new Redis(REDIS_URL, { enableAutoPipelining: true });
  async canActivate(): Promise<boolean> {
    await RedisPingGuard.redis.ping();
    return true;
  }
}

@Controller('v1/demo')
class RedisFloorController {
  @Get('echo')
  @UseGuards(RedisPingGuard)
  echo(@Req() request: GuardedRequest) {
    return echo(request);
  }
}

@Controller('v1/demo')
@UseFilters(GuardRejectionFilter)
class ThrottledController {
  @Get('echo')
  @UseGuards(ThrottlerGuard)
  echo(@Req() request: GuardedRequest) {
    return echo(request);
  }
}

function appModule(): DynamicModule {
  @Module({})
  class BenchModule {}
  if (mode === 'unguarded') return { module: BenchModule, controllers: [UnguardedController] };
  if (mode === 'redis-floor') return { module: BenchModule, controllers: [RedisFloorController] };
  if (mode === 'guarded' || mode === 'guarded-unmetered' || mode === 'crossover') {
    const record: KeyRecord = benchKeyRecord('key_bench', 'plan_bench');
    const keys = new Map([[sha256Hex(KEY), record]]);
    const lookup = async (hash: string) => keys.get(hash) ?? null;
    if (mode === 'crossover') {
      return {
        module: BenchModule,
        imports: [TollgateGuardModule.forRoot({ redis: REDIS_URL, prefix: PREFIX, lookup, storeMaxBatch: MAX_BATCH }), throttlerModule()],
        providers: [
          {
            provide: UNMETERED_VERIFIER,
            useFactory: async () => {
              const verifier = new KeyVerifier({ redis: REDIS_URL, prefix: PREFIX, lookup, metering: false, storeMaxBatch: MAX_BATCH });
              await verifier.start();
              return verifier;
            },
          },
          UnmeteredTollgateGuard,
        ],
        controllers: [CrossoverController],
      };
    }
    return {
      module: BenchModule,
      imports: [TollgateGuardModule.forRoot({ redis: REDIS_URL, prefix: PREFIX, lookup, metering: mode === 'guarded', storeMaxBatch: MAX_BATCH })],
      controllers: [GuardedController],
    };
  }
  return { module: BenchModule, imports: [throttlerModule()], controllers: [ThrottledController] };
}

/** @nestjs/throttler with the bench's burst and sustained limits as two named throttlers, on Redis. */
function throttlerModule(): DynamicModule {
  const [burst, sustained] = BENCH_LIMITS;
  return ThrottlerModule.forRoot({
    throttlers: [
      { name: burst.name, ttl: burst.windowMs, limit: burst.burst ?? burst.limit },
      { name: sustained.name, ttl: sustained.windowMs, limit: sustained.limit },
    ],
    storage: new ThrottlerStorageRedisService(REDIS_URL),
    // The default key (sha256 of class-handler-name-tracker), under our prefix so the bench can
    // delete what it wrote.
    generateKey: (context: ExecutionContext, tracker: string, name: string) =>
      `${PREFIX}${createHash('sha256').update(`${context.getClass().name}-${context.getHandler().name}-${name}-${tracker}`).digest('hex')}`,
  });
}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(appModule(), new FastifyAdapter(), { logger: ['error', 'warn'] });
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as { port: number };
  let closing = false;
  const close = () => {
    if (closing) return;
    closing = true;
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', close);
  process.on('SIGINT', close);
  // The parent died: do not linger.
  process.on('disconnect', close);
  console.log(`READY ${port}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
