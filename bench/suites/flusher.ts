// The usage flusher: how fast it moves Redis minute buckets into the Postgres rollups (minute +
// hour + day rows, the UsageFlush markers, owner/plan lookup, lastUsedAt). Buckets are filled
// with HINCRBY pipelines in the engine's exact layout (meterBucketKey / meterIndexKey), for
// minutes already closed, then ONE flusher run moves each scenario's buckets; after every run the
// rollups must hold every decision written so far exactly once, at each granularity, and Redis
// nothing left to flush, or the benchmark fails (verifyTotals).
//
// The flusher's work is per key-minute (one row per key and minute, whatever its counts), so
// decisions/s depends on how many decisions each row carries. The headline is therefore the
// sparse case, one decision per key-minute (decisions/s = key-minutes/s, the floor), run three
// times on keys of its own and reported by its median run; the
// "typical" case carries random counts of 1..40 in each of the four outcome fields, so its
// decisions/s grows with that maximum and is reported only as a secondary figure, as is "steady"
// (one minute per run, the steady state). Runs on a scratch database (migrated with the real
// `prisma migrate deploy`, dropped afterwards) and a unique Redis prefix.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import Module from 'node:module';
import path from 'node:path';
import Redis from 'ioredis';
import { Client } from 'pg';
import { deletePrefix } from '../../libs/rate-limit/src/redis-test-client.test-util';
import { medianBy } from '../stats';

export const name = 'flusher';

const ROOT = path.resolve(__dirname, '../..');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const MINUTE = 60_000;

/** Workspace packages resolve to their TypeScript source (as in vitest), not to a possibly stale dist/. */
function aliasWorkspacePackages(): void {
  const sources: Record<string, string> = {
    '@tollgate/rate-limit': path.join(ROOT, 'libs/rate-limit/src/index.ts'),
    '@tollgate/contracts': path.join(ROOT, 'libs/contracts/src/index.ts'),
  };
  const loader = Module as unknown as { _resolveFilename: (request: string, ...rest: unknown[]) => string };
  const original = loader._resolveFilename;
  loader._resolveFilename = function (request: string, ...rest: unknown[]) {
    return original.call(this, sources[request] ?? request, ...rest);
  };
}

function databaseUrl(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * CPU seconds used so far by every Postgres server process on this machine (Linux /proc; null
 * elsewhere): a run's Postgres CPU, less noisy than its wall time on a shared machine.
 */
function postgresCpuSeconds(): number | null {
  try {
    let ticks = 0;
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        if (!stat.includes('(postgres)')) continue;
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // The process ended meanwhile.
      }
    }
    return ticks / 100; // USER_HZ, 100 on Linux
  } catch {
    return null;
  }
}

interface Scenario {
  label: string;
  buckets: number;
  keys: number;
  /** Counts per `<keyId>|<outcome>` field are drawn from 1..maxCount. */
  maxCount: number;
  /** Outcome fields written per key and minute. */
  outcomes: readonly string[];
  /** Its keys are key_bench_<keyOffset + 1..keys>: each Sparse run gets keys of its own. */
  keyOffset?: number;
}

const ALL_OUTCOMES = ['valid', 'rateLimited', 'quotaExceeded', 'invalid'] as const;

const RESULT_MARK = 'FLUSHER_BENCH_RESULT ';

/**
 * Every decision written so far is in the rollups exactly once, at each granularity, and nothing
 * is left in Redis for a flusher (no closed bucket, no pending snapshot). Throws otherwise: a
 * fast flusher that loses or doubles counts must fail the benchmark, not report a figure.
 */
async function verifyTotals(db: Client, redis: Redis, keys: { indexKey: string; pendingKey: string }, written: number, label: string): Promise<void> {
  const { rows } = await db.query<{ granularity: string; n: string }>(
    `SELECT granularity::text, sum(valid + "rateLimited" + "quotaExceeded" + invalid)::text AS n FROM "UsageRollup" GROUP BY 1`,
  );
  const sums = new Map(rows.map((row) => [row.granularity, Number(row.n)]));
  for (const granularity of ['minute', 'hour', 'day']) {
    if (sums.get(granularity) !== written) throw new Error(`${label}: ${granularity} rollups hold ${sums.get(granularity) ?? 0} decisions, ${written} were written`);
  }
  const [indexed, pending] = await Promise.all([redis.zcard(keys.indexKey), redis.zcard(keys.pendingKey)]);
  if (indexed !== 0 || pending !== 0) throw new Error(`${label}: ${indexed} closed bucket(s) and ${pending} snapshot(s) left in Redis after the run`);
}

/**
 * The API's classes use parameter decorators, which tsx compiles only for files its tsconfig
 * includes: so the measurement runs in a child process with the API's tsconfig (as the engine
 * suite runs its loops in children), and reports one JSON line.
 */
export async function run(opts: { quick: boolean }): Promise<Record<string, unknown>> {
  // --expose-gc: the child collects the garbage of its own bucket filling before each measured run.
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', __filename, '--flusher-bench-child', opts.quick ? 'quick' : 'full'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TSX_TSCONFIG_PATH: path.join(ROOT, 'apps/api/tsconfig.json') },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = out.split('\n').find((l) => l.startsWith(RESULT_MARK));
  if (!line) throw new Error(`flusher bench child printed no result:\n${out}`);
  return JSON.parse(line.slice(RESULT_MARK.length)) as Record<string, unknown>;
}

async function measure(opts: { quick: boolean }): Promise<Record<string, unknown>> {
  aliasWorkspacePackages();
  const { meterBucketKey, meterIndexKey } = await import('../../libs/rate-limit/src/index');
  const { PrismaService } = await import('../../apps/api/src/infra/prisma.service');
  const { UsageRepository } = await import('../../apps/api/src/usage/usage.repository');
  const { UsageFlusher } = await import('../../apps/api/src/usage/usage-flusher');
  const { USAGE_KEY_PREFIX, UsageStore } = await import('../../apps/api/src/usage/usage-store');

  const database = `tollgate_bench_flusher_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE ${database}`);
  const url = databaseUrl(database);
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  const prefix = `tgbench:flusher:${randomBytes(4).toString('hex')}:`;
  let prisma: InstanceType<typeof PrismaService> | undefined;
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/prisma/build/index.js'), 'migrate', 'deploy'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: url, CHECKPOINT_DISABLE: '1' },
      stdio: 'pipe',
    });
    prisma = new PrismaService({ DATABASE_URL: url } as never);
    const repository = new UsageRepository(prisma);

    // Sparse: one `valid` decision per key-minute, a 5-minute backlog of 10 000 keys (large enough
    // that fixed costs do not dominate). Typical: four outcome fields of 1..40 each. Steady: the
    // steady state, one minute per run whose hour and day rows already exist (they are updated,
    // not inserted) and whose keys' lastUsedAt moves. Warmup (not reported): one small flush
    // first, so no measured case pays the cold start (JIT, Postgres connection, first statements).
    const warmup: Scenario = { label: 'Warmup', buckets: 1, keys: 2000, maxCount: 1, outcomes: ['valid'] };
    // The headline (Sparse) runs three times, each on 10 000 keys of its own (so each inserts its
    // hour and day rows, as the first did), and reports its median run: one run's rate moves by
    // 10-20 % with this shared machine's speed.
    const sparseBuckets = opts.quick ? 5 : 20;
    const sparse = [0, 1, 2].map((run): Scenario => ({ label: 'Sparse', buckets: sparseBuckets, keys: 10_000, maxCount: 1, outcomes: ['valid'], keyOffset: 20_000 + run * 10_000 }));
    const scenarios: Scenario[] = [
      warmup,
      sparse[0],
      { label: 'Typical', buckets: sparseBuckets, keys: 10_000, maxCount: 40, outcomes: ALL_OUTCOMES },
      { label: 'Steady', buckets: 1, keys: 10_000, maxCount: 1, outcomes: ['valid'] },
      sparse[1],
      sparse[2],
    ];
    const maxKeys = Math.max(...scenarios.map((s) => (s.keyOffset ?? 0) + s.keys));
    // Real keys (owner/plan lookup and lastUsedAt are part of the work), plus unknown secrets ('-').
    const db = new Client({ connectionString: url });
    await db.connect();
    await db.query(`INSERT INTO "Plan" (id, name, "updatedAt") VALUES ('plan_bench', 'bench', now())`);
    await db.query(
      `INSERT INTO "ApiKey" (id, hash, start, prefix, name, "planId", "ownerId", "updatedAt")
       SELECT 'key_bench_' || i, md5(i::text), 'tg_bench', 'tg', 'bench ' || i, 'plan_bench', 'owner_' || (i % 100), now()
       FROM generate_series(1, $1::int) AS i`,
      [maxKeys],
    );

    const figures: Record<string, unknown> = {};
    const runsByLabel = new Map<string, Record<string, unknown>[]>();
    const now = Number((await redis.time())[0]) * 1000;
    // Closed minutes in ascending order, each scenario after the one before, as time goes: so
    // every scenario moves lastUsedAt, and Steady's minute (usually) shares its hour and day.
    const totalBuckets = scenarios.reduce((sum, s) => sum + s.buckets, 0);
    let minuteCursor = Math.floor(now / MINUTE) * MINUTE - (totalBuckets + 2) * MINUTE;
    let written = 0;
    for (const scenario of scenarios) {
      let decisions = 0;
      for (let b = 0; b < scenario.buckets; b++) {
        const minute = minuteCursor;
        minuteCursor += MINUTE;
        const bucket = meterBucketKey(prefix, USAGE_KEY_PREFIX, minute);
        let pipeline = redis.pipeline();
        for (let k = 1; k <= scenario.keys; k++) {
          const member = k === scenario.keys ? '-' : `key_bench_${(scenario.keyOffset ?? 0) + k}`;
          for (const outcome of scenario.outcomes) {
            const count = 1 + Math.floor(Math.random() * scenario.maxCount);
            pipeline.hincrby(bucket, `${member}|${outcome}`, count);
            decisions += count;
          }
          if (k % 5000 === 0) {
            await pipeline.exec();
            pipeline = redis.pipeline();
          }
        }
        pipeline.pexpire(bucket, 172_800_000);
        pipeline.zadd(meterIndexKey(prefix, USAGE_KEY_PREFIX), minute, String(minute));
        await pipeline.exec();
      }
      written += decisions;
      // One flusher run moves the whole scenario (maxBucketsPerRun covers it).
      const flusher = new UsageFlusher(repository, { client: redis, prefix }, { intervalMs: 1000, pruneEveryMs: 0, maxBucketsPerRun: 10_000 });
      // The filling above left ~100 000 commands' worth of garbage: collected now, or a collection
      // during the run would charge the bench's own setup to the flusher.
      (globalThis as { gc?: () => void }).gc?.();
      // Likewise Postgres: the suites before this one (dashboard-api seeds 100 000 keys and a day of
      // usage) and the filling leave dirty pages; a checkpoint now keeps their writing out of the run.
      await db.query('CHECKPOINT');
      const pgBefore = postgresCpuSeconds();
      const nodeBefore = process.cpuUsage();
      const began = performance.now();
      const stats = await flusher.runOnce();
      const seconds = (performance.now() - began) / 1000;
      const nodeCpu = process.cpuUsage(nodeBefore);
      const pgAfter = postgresCpuSeconds();
      const keyMinutes = scenario.buckets * scenario.keys;
      if (stats.decisions !== decisions || stats.rows !== keyMinutes || stats.committed !== scenario.buckets) {
        throw new Error(`${scenario.label}: the run flushed ${stats.decisions} decisions, ${stats.rows} key-minutes, ${stats.committed} buckets; wrote ${decisions}, ${keyMinutes}, ${scenario.buckets}`);
      }
      await verifyTotals(db, redis, new UsageStore({ client: redis, prefix }), written, scenario.label);
      if (scenario === warmup) continue;
      const run: Record<string, unknown> = {};
      run[`flusher${scenario.label}Buckets`] = scenario.buckets;
      run[`flusher${scenario.label}KeysPerBucket`] = scenario.keys;
      run[`flusher${scenario.label}Decisions`] = decisions;
      run[`flusher${scenario.label}Seconds`] = Number(seconds.toFixed(3));
      run[`flusher${scenario.label}DecisionsPerSec`] = Math.round(decisions / seconds);
      run[`flusher${scenario.label}KeyMinutesPerSec`] = Math.round(stats.rows / seconds);
      run[`flusher${scenario.label}RollupTotalAfter`] = written;
      // CPU per key-minute, of the Postgres server and of this (the flusher's) process: what the
      // work costs, whatever else the machine was doing.
      if (pgBefore !== null && pgAfter !== null) run[`flusher${scenario.label}PostgresCpuUsPerKeyMinute`] = Number((((pgAfter - pgBefore) * 1e6) / stats.rows).toFixed(1));
      run[`flusher${scenario.label}NodeCpuUsPerKeyMinute`] = Number(((nodeCpu.user + nodeCpu.system) / stats.rows).toFixed(1));
      const runs = runsByLabel.get(scenario.label) ?? [];
      runs.push(run);
      runsByLabel.set(scenario.label, runs);
    }
    // Each scenario's figures are those of its median run (by key-minutes/s); all its rates too.
    for (const [label, runs] of runsByLabel) {
      const rate = (run: Record<string, unknown>) => run[`flusher${label}KeyMinutesPerSec`] as number;
      Object.assign(figures, medianBy(runs, rate));
      if (runs.length > 1) figures[`flusher${label}KeyMinutesPerSecRuns`] = runs.map(rate);
    }
    figures.flusherTotalsVerified = true;
    await db.end();
    // The headline: the sparse case, one decision per key-minute, so decisions/s = key-minutes/s
    // (the flusher's unit of work). Denser buckets move more decisions per row (see Typical).
    figures.flusherDecisionsPerSec = figures.flusherSparseDecisionsPerSec;
    figures.flusherKeyMinutesPerSec = figures.flusherSparseKeyMinutesPerSec;
    figures.flusherTargetDecisionsPerSec = 50_000;
    return figures;
  } finally {
    await prisma?.$disconnect();
    await deletePrefix(redis, prefix);
    redis.disconnect();
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  }
}

if (process.argv[2] === '--flusher-bench-child') {
  measure({ quick: process.argv[3] === 'quick' })
    .then((figures) => {
      console.log(`${RESULT_MARK}${JSON.stringify(figures)}`);
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
