// Probe (not part of `npm run bench`): Node CPU per call of the guard's layers against real Redis,
// 64 calls in flight, no HTTP. Each layer is measured 5 times, interleaved, median reported.
//   ping          one PING on the guard's connection (WriteCoalescingRedis)
//   store         RedisStore.check: the guard's EVALSHA (2 limits + quota + meter), no verifier
//   verify        KeyVerifier.verify: cache hit, checks, deadline, breaker, result
//   verifyHeaders verify + verificationHeaders (what the guard does before the reply)
// Runs the built libraries (what the API runs): `npx nx run @tollgate/api:build` first, then
//   taskset -c 0 node --import tsx bench/probes/verify-cpu.ts
// (taskset: this VM's two vCPUs differ in speed; pin to compare runs.)
import { createGuardRedis, KeyVerifier, sha256Hex, verificationHeaders, type KeyRecord } from '@tollgate/nest-guard';
import { RedisStore, type CheckRequest } from '@tollgate/rate-limit';
import { benchCheckRequest, benchKeyRecord } from '../guard/limits';
import { median } from '../stats';
import { cpuPerCall } from './cpu-per-call';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `tgprobe:${process.pid}:`;
const SECRET = 'tg_probe_secret_abcdefghijklmnopqrstuv';
const CALLS = 60_000;
const IN_FLIGHT = 64;

async function main(): Promise<void> {
  const record: KeyRecord = benchKeyRecord('key_probe', 'plan_probe');
  const hash = sha256Hex(SECRET);
  const verifier = new KeyVerifier({ redis: REDIS_URL, prefix: PREFIX, lookup: async (h) => (h === hash ? record : null) });
  await verifier.start();
  const redis = createGuardRedis(REDIS_URL, 'tollgate-probe');
  await new Promise((resolve) => redis.once('ready', resolve));
  const store = new RedisStore(redis, { prefix: `${PREFIX}store:` });
  const request: CheckRequest = benchCheckRequest('key_probe');
  const layers: Record<string, () => Promise<unknown>> = {
    ping: () => redis.ping(),
    store: () => store.check(request),
    verify: () => verifier.verify(SECRET),
    verifyHeaders: async () => verificationHeaders(await verifier.verify(SECRET)),
  };
  try {
    for (const call of Object.values(layers)) await cpuPerCall(call, CALLS, IN_FLIGHT); // warm-up: JIT, script load, cache
    const runs = new Map(Object.keys(layers).map((name) => [name, [] as number[]]));
    for (let rep = 0; rep < 5; rep++) for (const [name, call] of Object.entries(layers)) runs.get(name)!.push(await cpuPerCall(call, CALLS, IN_FLIGHT));
    for (const [name, values] of runs) {
      console.log(`${name.padEnd(14)} median ${median(values).toFixed(2)} us CPU per call (runs ${values.map((v) => v.toFixed(2)).join(', ')})`);
    }
  } finally {
    await verifier.close();
    const keys = await redis.keys(`${PREFIX}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
