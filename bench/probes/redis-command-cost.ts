// Probe (not part of `npm run bench`): what ioredis costs Node per command, for the shapes of
// command the guard could send. No Tollgate code runs: stand-in scripts return a fixed reply of the
// check script's size (15 integers), so only the client's work is measured. 64 calls in flight, CPU
// per request, median of 4 interleaved runs.
//   ping             PING
//   evalsha3Keys     EVALSHA, 3 keys (2 limits + quota, as the guard sends) + a 150-byte argument
//   evalsha1Key      the same with each identity hash passed once (1 key)
//   packedReply      3 keys, the reply as one binary string instead of 15 integers
//   batchOf16        one EVALSHA for 16 requests (48 keys, 16 arguments, 16 replies): per request
//   taskset -c 0 node --import tsx bench/probes/redis-command-cost.ts
import { createGuardRedis } from '@tollgate/nest-guard';
import { median } from '../stats';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const REQUESTS = 100_000;
const REPLY = '{0, 1764720000000, 1000000000, 999999999, 1767225600000, 1, 999999998, 1000, 0, 0, 1, 999999998, 7200000, 0, 0}';
const KEY = 'tgprobe:{key:key_probe}';

async function cpuPerRequest(call: () => Promise<unknown>, requestsPerCall: number, inFlight: number): Promise<number> {
  let started = 0;
  const loop = async () => {
    while (started < REQUESTS) {
      started += requestsPerCall;
      await call();
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: inFlight }, loop));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / REQUESTS;
}

async function main(): Promise<void> {
  const redis = createGuardRedis(REDIS_URL, 'tollgate-probe');
  await new Promise((resolve) => redis.once('ready', resolve));
  const load = async (script: string) => String(await redis.script('LOAD', script));
  const ints = await load(`return ${REPLY}`);
  const packed = await load(`local o = ${REPLY} return struct.pack('<' .. string.rep('d', #o), unpack(o))`);
  const many = await load(`local o = {} for i = 1, #ARGV do o[i] = ${REPLY} end return o`);
  const arg = Buffer.alloc(150);
  const batchKeys = Array.from({ length: 48 }, () => KEY);
  const batchArgs = Array.from({ length: 16 }, () => Buffer.alloc(150));
  const shapes: Record<string, [() => Promise<unknown>, number, number]> = {
    ping: [() => redis.ping(), 1, 64],
    evalsha3Keys: [() => redis.callBuffer('EVALSHA', ints, 3, KEY, KEY, KEY, arg), 1, 64],
    evalsha1Key: [() => redis.callBuffer('EVALSHA', ints, 1, KEY, arg), 1, 64],
    packedReply: [() => redis.callBuffer('EVALSHA', packed, 3, KEY, KEY, KEY, arg), 1, 64],
    batchOf16: [() => redis.callBuffer('EVALSHA', many, 48, ...batchKeys, ...batchArgs), 16, 4],
  };
  try {
    for (const [call, per, inFlight] of Object.values(shapes)) await cpuPerRequest(call, per, inFlight);
    const runs = new Map(Object.keys(shapes).map((name) => [name, [] as number[]]));
    for (let rep = 0; rep < 4; rep++) for (const [name, [call, per, inFlight]] of Object.entries(shapes)) runs.get(name)!.push(await cpuPerRequest(call, per, inFlight));
    for (const [name, values] of runs) {
      console.log(`${name.padEnd(13)} median ${median(values).toFixed(2)} us CPU per request (runs ${values.map((v) => v.toFixed(2)).join(', ')})`);
    }
  } finally {
    redis.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
