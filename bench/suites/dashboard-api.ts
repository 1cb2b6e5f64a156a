// The API calls behind the dashboard's keys list and overview, on a realistic amount of data:
// a scratch database migrated like production, `db:seed:large` into it (100 000 keys over 1 000
// owners, a day of usage for 500 of them), one real API process (`node apps/api/dist/main.js`)
// and each call measured sequentially and at concurrency 4, as the dashboard's server and browser
// make them. Target: p95 < 200 ms for every call.
//
// Latency is measured here, over loopback, from request start to the last byte of the body.
import { randomBytes, randomInt } from 'node:crypto';
import { Client } from 'pg';
import { issueSecret, ROOT_KEY_PREFIX } from '../../apps/api/src/keys/key-secret';
import { ownerId, seedLarge } from '../../prisma/seed-large';
import { deleteRedisPrefix, startApiProcesses } from '../../test/support/api-process';
import { buildApi, createBenchDatabase } from '../guard/processes';

export const name = 'dashboard-api';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TARGET_P95_MS = 200;
const CONCURRENCY = 4;
const DEEP_PAGES = 50;
/** The keys page's page size (apps/dashboard/app/(app)/keys/page.tsx PAGE_SIZE). */
const KEYS_PAGE_SIZE = 25;

interface Stats {
  n: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

interface CallFigures {
  path: string;
  sequential: Stats;
  concurrent: Stats;
  /** The worse of the two p95s: what the summary and the target use. */
  p95Ms: number;
  meetsTarget: boolean;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return { n: sorted.length, p50Ms: round(percentile(sorted, 50)), p95Ms: round(percentile(sorted, 95)), maxMs: round(sorted[sorted.length - 1] ?? 0) };
}

async function main(): Promise<void> {
  // Exists only so `tsx bench/suites/dashboard-api.ts` can be run on its own while developing.
  console.log(JSON.stringify(await run({ quick: process.argv.includes('--quick') }), null, 2));
}

export async function run(opts: { quick: boolean }): Promise<Record<string, unknown>> {
  const build = buildApi();
  if (!build.ok) console.warn(`dashboard-api bench: the API build failed; using the existing dist:\n${build.message}`);
  const requests = opts.quick ? 100 : 200;
  const seedKeys = 100_000;
  const activeKeys = 500;

  const db = await createBenchDatabase();
  const redisPrefix = `tgbench:dash:${randomBytes(4).toString('hex')}:`;
  let api: Awaited<ReturnType<typeof startApiProcesses>> | undefined;
  try {
    console.log(`dashboard-api: seeding ${seedKeys.toLocaleString('en-US')} keys...`);
    const seeded = await seedLarge(db.url, { keys: seedKeys, active: activeKeys, log: (line) => console.log(`  ${line.trim()}`) });
    const rootKey = issueSecret(ROOT_KEY_PREFIX).secret;
    api = await startApiProcesses({ databaseUrl: db.url, rootKey, redisUrl: REDIS_URL, redisPrefix, env: { USAGE_FLUSH_MS: '1000' } });
    const base = api.urls[0]!;
    const headers = { authorization: `Bearer ${rootKey}`, accept: 'application/json' };

    const get = async (path: string): Promise<unknown> => {
      const res = await fetch(`${base}${path}`, { headers });
      const text = await res.text();
      if (!res.ok) throw new Error(`GET ${path} -> ${res.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as unknown;
    };
    const timed = async (path: string): Promise<number> => {
      const began = performance.now();
      await get(path);
      return performance.now() - began;
    };

    // Inputs taken from the data: a deep cursor, name fragments, owners, an active key.
    const pg = new Client({ connectionString: db.url });
    await pg.connect();
    let activeKeyIds: string[];
    let rareFragments: string[];
    try {
      activeKeyIds = (await pg.query<{ keyId: string }>(`SELECT DISTINCT "keyId" FROM "UsageRollup" WHERE granularity = 'minute' AND "keyId" <> '-' LIMIT 50`)).rows.map((r) => r.keyId);
      // "<noun> <env> <n>": matches one key or a handful, so the search cannot stop early.
      rareFragments = (await pg.query<{ name: string }>(`SELECT name FROM "ApiKey" ORDER BY random() LIMIT 50`)).rows.map((r) => r.name.split(' ').slice(1).join(' '));
    } finally {
      await pg.end();
    }
    let cursor: string | null = null;
    for (let page = 0; page < DEEP_PAGES; page++) {
      const body = (await get(`/v1/keys?limit=${KEYS_PAGE_SIZE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)) as { nextCursor: string | null };
      cursor = body.nextCursor;
      if (!cursor) throw new Error(`the keys list ended after ${page + 1} pages`);
    }
    const deepCursor = cursor!;

    const iso = (ms: number) => new Date(ms).toISOString();
    const page = `/v1/keys?limit=${KEYS_PAGE_SIZE}`;
    const calls: Record<string, () => string> = {
      keysFirstPage: () => page,
      keysDeepPage: () => `${page}&cursor=${encodeURIComponent(deepCursor)}`,
      keysSearchCommon: () => `${page}&q=${['falcon', 'river', 'otter', 'summit'][randomInt(4)]}`,
      keysSearchRare: () => `${page}&q=${encodeURIComponent(rareFragments[randomInt(rareFragments.length)]!)}`,
      keysByOwner: () => `${page}&ownerId=${ownerId(randomInt(seeded.owners))}`,
      keysByPlan: () => `${page}&planId=${seeded.planId}`,
      // The "Disabled" filter: ~3 % of the seeded keys, so a page has to look further.
      keysDisabled: () => `${page}&enabled=false`,
      // The keys page loads every plan with its key count next to the list.
      plansList: () => '/v1/plans',
      usageMinute1h: () => `/v1/usage?granularity=minute&from=${iso(Date.now() - 3_600_000)}&to=${iso(Date.now())}`,
      usageHour24h: () => `/v1/usage?granularity=hour&from=${iso(Date.now() - 86_400_000)}&to=${iso(Date.now())}`,
      usageTop24h: () => `/v1/usage/top?from=${iso(Date.now() - 86_400_000)}&limit=10`,
      usageKeyMinute1h: () => `/v1/usage?keyId=${activeKeyIds[randomInt(activeKeyIds.length)]}&granularity=minute&from=${iso(Date.now() - 3_600_000)}&to=${iso(Date.now())}`,
    };

    const results: Record<string, CallFigures> = {};
    for (const [callName, path] of Object.entries(calls)) {
      for (let i = 0; i < 10; i++) await timed(path()); // warm-up: connections, plans, caches
      const sequential: number[] = [];
      for (let i = 0; i < requests; i++) sequential.push(await timed(path()));
      const concurrent: number[] = [];
      let issued = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (issued < requests) {
            issued++;
            concurrent.push(await timed(path()));
          }
        }),
      );
      const seq = stats(sequential);
      const conc = stats(concurrent);
      const p95Ms = Math.max(seq.p95Ms, conc.p95Ms);
      results[callName] = { path: path().replace(/[?&](from|to)=[^&]+/g, (m) => m.replace(/=.*/, '=…')), sequential: seq, concurrent: conc, p95Ms, meetsTarget: p95Ms < TARGET_P95_MS };
      console.log(`  ${callName.padEnd(18)} p50 ${seq.p50Ms} / ${conc.p50Ms} ms   p95 ${seq.p95Ms} / ${conc.p95Ms} ms   (sequential / x${CONCURRENCY})`);
    }

    // What the keys page waits for (the list and the plans beside it) and what the overview loads
    // by default (usage per minute over the last hour, top keys over 24 h) or on the 24h range.
    const keysCalls = ['keysFirstPage', 'keysDeepPage', 'keysSearchCommon', 'keysSearchRare', 'keysByOwner', 'keysByPlan', 'keysDisabled', 'plansList'];
    const overviewCalls = ['usageMinute1h', 'usageHour24h', 'usageTop24h'];
    const maxP95 = (names: string[]) => Math.max(...names.map((n) => results[n]!.p95Ms));
    const missed = Object.entries(results)
      .filter(([, r]) => !r.meetsTarget)
      .map(([n]) => n);
    return {
      dashboardKeysListP95Ms: maxP95(keysCalls),
      dashboardKeysFirstPageP95Ms: results.keysFirstPage!.p95Ms,
      dashboardOverviewP95Ms: maxP95(overviewCalls),
      dashboardTargetP95Ms: TARGET_P95_MS,
      dashboardCallsOverTarget: missed.length ? missed.join(',') : 'none',
      dashboardSeedKeys: seedKeys,
      // Objects stay in bench/results/dashboard-api.json only (summary.json takes the scalars above).
      p95MsByCall: Object.fromEntries(Object.entries(results).map(([n, r]) => [n, r.p95Ms])),
      calls: results,
      seed: { ...seeded, requestsPerMode: requests, concurrency: CONCURRENCY, deepPage: DEEP_PAGES + 1 },
      apiBuild: build.ok ? 'ok' : 'failed (existing dist used)',
    };
  } finally {
    await api?.stop();
    await deleteRedisPrefix(redisPrefix, REDIS_URL).catch(() => 0);
    await db.drop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
