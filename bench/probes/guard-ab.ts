// Probe (not part of `npm run bench`): Node CPU per call of the guard's layers, for two builds in
// one process, alternating, so the machine's drift hits both alike: the built libraries
// (libs/*/dist) against an earlier revision's, built by build-before.sh. Layers:
//   store   RedisStore.check, the guard bench's request (2 limits + quota + meter)
//   verify  KeyVerifier.verify + verificationHeaders (what the guard does before the reply)
// 64 calls in flight against real Redis, 30 000 calls per run, 10 measured pairs per layer (2
// warm-up), the order within a pair alternating; median per build and median of per-pair ratios.
//   npx nx run-many -t build --projects=@tollgate/nest-guard,@tollgate/rate-limit
//   BEFORE_MODULES=$(bash bench/probes/build-before.sh <rev>) taskset -c 0 node --import tsx bench/probes/guard-ab.ts
import { createRequire } from 'node:module';
import * as after from '@tollgate/nest-guard';
import * as afterEngine from '@tollgate/rate-limit';
import type { CheckRequest } from '@tollgate/rate-limit';
import type { KeyRecord } from '@tollgate/nest-guard';
import Redis from 'ioredis';
import { benchCheckRequest, benchKeyRecord } from '../guard/limits';
import { median } from '../stats';
import { cpuPerCall } from './cpu-per-call';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const BEFORE_MODULES = process.env.BEFORE_MODULES;
if (!BEFORE_MODULES) throw new Error('BEFORE_MODULES: the node_modules directory build-before.sh printed (see the header)');
const load = createRequire(__filename);
const before = load(`${BEFORE_MODULES}/@tollgate/nest-guard`) as typeof after;
const beforeEngine = load(`${BEFORE_MODULES}/@tollgate/rate-limit`) as typeof afterEngine;
const PREFIX = `tgprobe:${process.pid}:`;
const SECRET = 'tg_probe_secret_abcdefghijklmnopqrstuv';
const CALLS = 30_000;

async function main(): Promise<void> {
  const redis = new Redis(REDIS_URL);
  const record: KeyRecord = benchKeyRecord('key_probe', 'plan_probe');
  const hash = after.sha256Hex(SECRET);
  const lookup = async (h: string) => (h === hash ? record : null);
  const request: CheckRequest = benchCheckRequest('key_probe');
  const sides = {
    before: {
      store: new beforeEngine.RedisStore(redis, { prefix: `${PREFIX}sb:` }),
      verifier: new before.KeyVerifier({ redis: REDIS_URL, prefix: `${PREFIX}vb:`, lookup, liveInvalidation: false }),
      headers: before.verificationHeaders,
    },
    after: {
      store: new afterEngine.RedisStore(redis, { prefix: `${PREFIX}sa:` }),
      verifier: new after.KeyVerifier({ redis: REDIS_URL, prefix: `${PREFIX}va:`, lookup, liveInvalidation: false }),
      headers: after.verificationHeaders,
    },
  };
  await Promise.all([sides.before.verifier.start(), sides.after.verifier.start()]);
  type Side = (typeof sides)['after'];
  const layers: Record<string, (side: Side) => () => Promise<unknown>> = {
    store: (side) => () => side.store.check(request),
    verify: (side) => async () => side.headers(await side.verifier.verify(SECRET)),
  };
  try {
    for (const [layer, make] of Object.entries(layers)) {
      const runs = { before: [] as number[], after: [] as number[] };
      for (let pair = 0; pair < 12; pair++) {
        const order = pair % 2 === 0 ? (['after', 'before'] as const) : (['before', 'after'] as const);
        for (const name of order) {
          const us = await cpuPerCall(make(sides[name]), CALLS);
          if (pair >= 2) runs[name].push(us);
        }
      }
      for (const name of ['before', 'after'] as const) {
        console.log(`${layer.padEnd(6)} ${name.padEnd(6)} median ${median(runs[name]).toFixed(2)} us CPU per call (runs ${runs[name].map((v) => v.toFixed(2)).join(', ')})`);
      }
      const ratios = runs.after.map((v, i) => v / runs.before[i]);
      console.log(`${layer.padEnd(6)} after ÷ before, median of pairs ${median(ratios).toFixed(3)} (pairs ${ratios.map((v) => v.toFixed(2)).join(', ')})`);
    }
  } finally {
    await Promise.all([sides.before.verifier.close(), sides.after.verifier.close()]);
    const keys = await redis.keys(`${PREFIX}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
