// The NestJS guard: what it costs per request (vs the same route without a guard, and vs
// @nestjs/throttler on Redis with the same two limits), and, on three real API processes sharing
// one Redis, whether a limit of 100 admits exactly 100 of 600 concurrent requests and how fast a
// limit change made through one instance is enforced by the others.
//
// Everything runs in one process tree on loopback: each HTTP server is a child process of its own,
// autocannon (the load generator) runs here. On a small shared machine absolute figures move from
// run to run; the ratios, measured back to back in the same run, are the figures to compare.
import autocannon from 'autocannon';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { issueSecret, ROOT_KEY_PREFIX } from '../../apps/api/src/keys/key-secret';
import { deleteRedisPrefix, startApiProcesses } from '../../test/support/api-process';
import { http } from '../../test/support/http';
import { buildApi, createBenchDatabase, startServer, type BenchServer, type ServerMode } from '../guard/processes';
import { pinProcess, sideBySide } from '../guard/side-by-side';
import { median, medianBy } from '../stats';

export const name = 'guard';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CONNECTIONS = 64;
/** The routes of a `crossover` server (bench/guard/server.ts). */
const METERED_PATH = '/v1/demo/echo';
const UNMETERED_PATH = '/v1/demo/echo-unmetered';
const UNGUARDED_PATH = '/v1/demo/echo-unguarded';
const THROTTLED_PATH = '/v1/demo/echo-throttled';
const OFFERED_RATE = 2000;

interface Load {
  /** 2xx answers per second: what the route really served (a 503 or 429 is not a served request). */
  rps: number;
  /** Every answer per second, whatever its status. */
  allRps: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  errors: number;
  /** Answers by HTTP status, e.g. {"200": 24000}. */
  statuses: Record<string, number>;
}

async function load(url: string, key: string, seconds: number, overallRate?: number, path = '/v1/demo/echo'): Promise<Load> {
  const statuses: Record<string, number> = {};
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${url}${path}`,
        headers: { authorization: `Bearer ${key}` },
        connections: CONNECTIONS,
        duration: seconds,
        ...(overallRate ? { overallRate } : {}),
      },
      (error: unknown, finished: autocannon.Result) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(finished)),
    );
    instance.on('response', (_client, statusCode) => {
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
    });
  });
  return {
    rps: Math.round((result.requests.total - result.non2xx) / result.duration),
    allRps: Math.round(result.requests.total / result.duration),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    statuses,
  };
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round2 = (n: number) => Math.round(n * 100) / 100;
const round3 = (n: number) => Math.round(n * 1000) / 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Guarded vs unguarded vs @nestjs/throttler, each server in its own process. */
async function httpFigures(quick: boolean): Promise<Record<string, unknown>> {
  const seconds = quick ? 5 : 15;
  const warmup = quick ? 2 : 3;
  const prefix = `tgbench:guard:${randomBytes(4).toString('hex')}:`;
  const key = issueSecret('tg').secret;
  const env = { REDIS_URL, BENCH_PREFIX: prefix, BENCH_KEY: key };
  const modes: ServerMode[] = ['unguarded', 'redis-floor', 'guarded', 'guarded-unmetered', 'throttler'];
  const servers = new Map<ServerMode, BenchServer>();
  // Two processes of `crossover`, for the crossovers only (below), not the peak rounds.
  const abServers: BenchServer[] = [];
  try {
    const started = await Promise.allSettled([...modes, 'crossover' as const, 'crossover' as const].map((mode) => startServer(mode, env)));
    for (const s of started) {
      if (s.status !== 'fulfilled') continue;
      if (s.value.mode === 'crossover') abServers.push(s.value);
      else servers.set(s.value.mode, s.value);
    }
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;

    for (const mode of modes) await load(servers.get(mode)!.url, key, warmup); // JIT, connections, key cache
    for (const server of abServers) for (const path of [METERED_PATH, UNMETERED_PATH, UNGUARDED_PATH, THROTTLED_PATH]) await load(server.url, key, warmup, undefined, path);
    // Peak rates: this machine's speed drifts by 2x within minutes, so one long run per mode in
    // sequence compares modes measured at different speeds. Instead every round runs each mode
    // once (order rotated per round) and each mode's figure is its median round.
    const rounds = quick ? 5 : 7;
    const roundSeconds = quick ? 3 : 5;
    const byMode = new Map<ServerMode, Load[]>(modes.map((mode) => [mode, []]));
    // The server's own CPU per request in each round: what each mode costs the API process,
    // steadier than its rate (the server runs at about one full core in every mode here).
    const cpuByMode = new Map<ServerMode, number[]>(modes.map((mode) => [mode, []]));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < modes.length; i++) {
        const mode = modes[(i + round) % modes.length];
        const server = servers.get(mode)!;
        const cpuBefore = server.cpuSeconds();
        const result = await load(server.url, key, roundSeconds);
        const cpuAfter = server.cpuSeconds();
        byMode.get(mode)!.push(result);
        if (cpuBefore !== null && cpuAfter !== null && result.total > 0) cpuByMode.get(mode)!.push(((cpuAfter - cpuBefore) * 1e6) / result.total);
      }
    }
    const serverCpuUsPerRequest = Object.fromEntries(
      [...cpuByMode].filter(([, values]) => values.length > 0).map(([mode, values]) => [mode, round2(median(values))]),
    );
    console.log(`  server CPU µs per request (median round): ${JSON.stringify(serverCpuUsPerRequest)}`);
    const peak = new Map<ServerMode, Load>();
    for (const mode of modes) {
      peak.set(mode, medianBy(byMode.get(mode)!, (l) => l.rps));
      console.log(`  ${mode}: median ${peak.get(mode)!.rps} 2xx/s at ${CONNECTIONS} connections (rounds: ${byMode.get(mode)!.map((l) => l.rps).join(', ')}), statuses ${JSON.stringify(peak.get(mode)!.statuses)}`);
    }
    // The two target ratios, by alternating blocks: the guarded server and its peer in the order
    // A B B A (or B A A B, alternating), 2 s each, and the ratio of their totals over all blocks.
    // The rounds above put up to four other runs (12 s) between the two servers of a ratio, and
    // this machine's speed drifts by up to 2x within seconds (rounds of one server in one run
    // ranged 9.2 k to 20.4 k 2xx/s), so a ratio of two medians of rounds mostly measured the drift
    // (it stays beside as `…OfRoundMedians`). In an A B B A block a steady drift cancels, and
    // summing many short runs of each side averages out the faster swings. Each block's own ratio
    // is kept, to show the spread.
    // Both servers of a block run pinned to the same vCPU (taskset on their main thread; the load
    // generator and Redis are not pinned), vCPU 0 for two blocks, then vCPU 1 for two, and so on:
    // this machine's two vCPUs at times differ in speed by up to 2x and a process tends to stay
    // on the vCPU it ran on, so unpinned the ratio also read where the scheduler had parked each
    // server (in one run the metered guarded server served 10.5 k 2xx/s and the unmetered one
    // 13.0 k, medians of nine runs each, while the crossovers put metering's cost at 1 %).
    const blockCount = quick ? 8 : 12;
    const blockSeconds = 2;
    const cpuCount = cpus().length;
    const everyCpu = `0-${cpuCount - 1}`;
    const blockCpus: number[] = [];
    let blocksPinned = cpuCount >= 2;
    let blocksNotOk = 0;
    const alternating = async (peer: 'unguarded' | 'throttler') => {
      let guardedTotal = 0;
      let peerTotal = 0;
      const blockRatios: number[] = [];
      const pair = [servers.get('guarded')!, servers.get(peer)!];
      try {
        for (let b = 0; b < blockCount; b++) {
          const order: ServerMode[] = b % 2 === 0 ? ['guarded', peer, peer, 'guarded'] : [peer, 'guarded', 'guarded', peer];
          const cpu = Math.floor(b / 2) % Math.max(1, cpuCount);
          if (blocksPinned && !pair.every((server) => pinProcess(server.pid, String(cpu)))) {
            blocksPinned = false;
            for (const server of pair) pinProcess(server.pid, everyCpu);
            console.warn('  alternating blocks unpinned (taskset failed)');
          }
          if (peer === 'unguarded') blockCpus.push(blocksPinned ? cpu : -1);
          let guarded = 0;
          let other = 0;
          for (const mode of order) {
            const run = await load(servers.get(mode)!.url, key, blockSeconds);
            blocksNotOk += run.non2xx + run.errors;
            const rps = run.rps;
            if (mode === 'guarded') guarded += rps;
            else other += rps;
          }
          blockRatios.push(round3(guarded / other));
          guardedTotal += guarded;
          peerTotal += other;
        }
      } finally {
        if (cpuCount >= 2) for (const server of pair) pinProcess(server.pid, everyCpu);
      }
      return { ratio: round2(guardedTotal / peerTotal), blockRatios };
    };
    const overUnguarded = await alternating('unguarded');
    const overThrottler = await alternating('throttler');
    console.log(
      `  alternating blocks (vCPUs ${blocksPinned ? blockCpus.join(', ') : 'unpinned'}): guarded ÷ unguarded ${overUnguarded.ratio} (blocks ${overUnguarded.blockRatios.join(', ')}); guarded ÷ throttler ${overThrottler.ratio} (blocks ${overThrottler.blockRatios.join(', ')})`,
    );
    const fixed = new Map<ServerMode, Load>();
    for (const mode of modes) {
      fixed.set(mode, await load(servers.get(mode)!.url, key, seconds, OFFERED_RATE));
      console.log(`  ${mode}: p50 ${fixed.get(mode)!.p50Ms} ms, p99 ${fixed.get(mode)!.p99Ms} ms at ${OFFERED_RATE} req/s offered, statuses ${JSON.stringify(fixed.get(mode)!.statuses)}`);
    }
    // Metering on and off, in sequence: the peak rounds plus alternating pairs, 9 (quick) or 13
    // (full) runs per side; their medians' ratio was this figure's first estimate, kept beside it.
    const meteredRuns: number[] = byMode.get('guarded')!.map((l) => l.rps);
    const unmeteredRuns: number[] = byMode.get('guarded-unmetered')!.map((l) => l.rps);
    for (let i = 0; i < (quick ? 4 : 6); i++) {
      const order: ServerMode[] = i % 2 === 0 ? ['guarded', 'guarded-unmetered'] : ['guarded-unmetered', 'guarded'];
      for (const mode of order) {
        const rps = (await load(servers.get(mode)!.url, key, roundSeconds)).rps;
        (mode === 'guarded' ? meteredRuns : unmeteredRuns).push(rps);
      }
    }
    console.log(`  metering on: ${meteredRuns.join(', ')} 2xx/s; off: ${unmeteredRuns.join(', ')} 2xx/s`);

    // Crossovers. Metering costs a few percent at most (bench/probes/script-instructions.sh: 5 k
    // of the script's 112 k instructions per decision for the bench's one key). Runs in sequence
    // cannot show that here: runs of one server a round apart differ by tens of percent (the
    // machine's speed drifts within seconds), and two processes of the same server can differ
    // steadily, by 8 % in CPU per request in a one-off side-by-side trial of two identical guarded
    // servers (a process tends to stay on its vCPU, and this machine's two vCPUs at times differ in
    // speed by up to 2x: bench/engine-pure-loop.ts pinned to each). Hence a crossover: two
    // `crossover` processes (one app serving four routes: metered, unmetered, unguarded and
    // throttled), pinned together to one vCPU, loaded at the same time by two load generators on
    // the other vCPU, half the connections each, in two halves: P1 on route A with P2 on route B,
    // then P1 on B with P2 on A. Running together cancels the drift; the geometric mean of the two
    // halves' A ÷ B ratios cancels what each process is worth: sqrt((a1/b2) · (a2/b1)). Metering:
    // A metered, B unmetered. The guard: A guarded, B unguarded (what the guard costs the API
    // process: Redis works on the other vCPU, so its share is not in it). The throttler: A
    // guarded, B throttled (its two EVALs per request are Redis work too, also left out). The
    // control: A and B both metered, what the method reads for no change.
    const crossovers = quick ? 4 : 6;
    const halfSeconds = quick ? 5 : 8;
    const [p1, p2] = abServers;
    const allCpus = `0-${cpus().length - 1}`;
    // Pin both or neither (a process pinned alone would only skew the comparison).
    const pinnedEach = cpus().length >= 2 ? abServers.map((server) => pinProcess(server.pid, '0')) : [];
    const pinned = pinnedEach.length === abServers.length && pinnedEach.every(Boolean);
    if (!pinned) {
      for (let i = 0; i < pinnedEach.length; i++) if (pinnedEach[i]) pinProcess(abServers[i].pid, allCpus);
      console.warn('  crossovers unpinned (taskset failed or one vCPU)');
    }
    let crossoverNotOk = 0;
    const half = async (path1: string, path2: string) => {
      const run = await sideBySide(`${p1.url}${path1}`, `${p2.url}${path2}`, key, CONNECTIONS / 2, halfSeconds, pinned ? '1' : undefined);
      crossoverNotOk += run.notOk;
      return run;
    };
    const crossover = async (routeA: string, routeB: string, flip: boolean) => {
      // One half a1 vs b2, the other a2 vs b1; which half comes first alternates.
      const first = flip ? await half(routeB, routeA) : await half(routeA, routeB);
      const second = flip ? await half(routeA, routeB) : await half(routeB, routeA);
      const [x, y] = flip ? [second, first] : [first, second];
      return { a1: x.aRps, b2: x.bRps, b1: y.aRps, a2: y.bRps, ratio: round3(Math.sqrt((x.aRps / x.bRps) * (y.bRps / y.aRps))), p1OverP2: round3(Math.sqrt((x.aRps / y.bRps) * (y.aRps / x.bRps))) };
    };
    type Crossover = Awaited<ReturnType<typeof crossover>>;
    const meteringCrossovers: Crossover[] = [];
    const guardCrossovers: Crossover[] = [];
    const throttlerCrossovers: Crossover[] = [];
    const controlCrossovers: Crossover[] = [];
    try {
      // Unmeasured: every route of both processes warm, side by side.
      await crossover(METERED_PATH, UNMETERED_PATH, false);
      await crossover(METERED_PATH, UNGUARDED_PATH, false);
      await crossover(METERED_PATH, THROTTLED_PATH, false);
      for (let i = 0; i < crossovers; i++) {
        meteringCrossovers.push(await crossover(METERED_PATH, UNMETERED_PATH, i % 2 === 1));
        guardCrossovers.push(await crossover(METERED_PATH, UNGUARDED_PATH, i % 2 === 1));
        throttlerCrossovers.push(await crossover(METERED_PATH, THROTTLED_PATH, i % 2 === 1));
        controlCrossovers.push(await crossover(METERED_PATH, METERED_PATH, i % 2 === 1));
      }
    } finally {
      if (pinned) for (const server of abServers) pinProcess(server.pid, allCpus);
    }
    const meteringRatios = meteringCrossovers.map((c) => c.ratio);
    const guardRatios = guardCrossovers.map((c) => c.ratio);
    const throttlerRatios = throttlerCrossovers.map((c) => c.ratio);
    const controlRatios = controlCrossovers.map((c) => c.ratio);
    console.log(
      `  crossovers: metering on ÷ off ${meteringRatios.join(', ')}; guarded ÷ unguarded ${guardRatios.join(', ')}; guarded ÷ throttler ${throttlerRatios.join(', ')}; control ${controlRatios.join(', ')}; process P1 ÷ P2 ${meteringCrossovers.map((c) => c.p1OverP2).join(', ')}`,
    );

    const rejected =
      [...peak.values(), ...fixed.values()].reduce((sum, l) => sum + l.non2xx + l.errors, 0) +
      blocksNotOk +
      crossoverNotOk;
    const u = peak.get('unguarded')!;
    const g = peak.get('guarded')!;
    const t = peak.get('throttler')!;
    const unmetered = peak.get('guarded-unmetered')!;
    return {
      // Over the alternating blocks (above); each block's ratio in `…Blocks`.
      guardOverheadRatio: overUnguarded.ratio,
      guardOverheadRatioBlocks: overUnguarded.blockRatios,
      // The earlier statistic: median round guarded ÷ median round unguarded.
      guardOverheadRatioOfRoundMedians: round2(g.rps / u.rps),
      serverCpuUsPerRequest,
      // What metering costs the API process: the median crossover (see above), and the control's;
      // each crossover's rates, and what the first process was worth against the second (1: alike).
      // Its cost inside Redis (the extra HINCRBY/ZADD work of the script) is the probe's to show.
      meteringOnOffRatio: round2(median(meteringRatios)),
      meteringOnOffRatioRuns: meteringRatios,
      meteringControlRatio: round2(median(controlRatios)),
      meteringControlRatioRuns: controlRatios,
      meteringCrossovers,
      // The guard's cost to the API process alone (Redis excluded), by the same crossovers.
      guardOverheadCrossoverRatio: round2(median(guardRatios)),
      guardOverheadCrossoverRatioRuns: guardRatios,
      guardCrossovers,
      // Ours over the throttler for the API process alone (Redis excluded: that favours the
      // throttler, which sends two EVALs per request), by the same crossovers.
      vsNestThrottlerCrossoverRatio: round2(median(throttlerRatios)),
      vsNestThrottlerCrossoverRatioRuns: throttlerRatios,
      throttlerCrossovers,
      controlCrossovers,
      crossoverHalfSeconds: halfSeconds,
      crossoverPinned: pinned,
      // The earlier estimate: median 2xx/s metered ÷ median unmetered, runs in sequence.
      meteringOnOffSequentialRatio: round2(median(meteredRuns) / median(unmeteredRuns)),
      // The same handler behind a guard that only awaits one Redis PING: what any Redis-backed
      // guard can reach on this machine, and how close ours gets to it.
      redisFloorRps: peak.get('redis-floor')!.rps,
      // The floor over unguarded: the guardOverheadRatio of a guard that does nothing but one Redis
      // round trip, i.e. the most any one-round-trip guard can reach on this machine.
      redisFloorOverheadRatio: round2(peak.get('redis-floor')!.rps / u.rps),
      guardVsRedisFloorRatio: round2(g.rps / peak.get('redis-floor')!.rps),
      meteringOnRpsRuns: meteredRuns,
      meteringOffRpsRuns: unmeteredRuns,
      guardedUnmeteredRps: unmetered.rps,
      vsNestThrottlerRedisRatio: overThrottler.ratio,
      vsNestThrottlerRedisRatioBlocks: overThrottler.blockRatios,
      vsNestThrottlerRedisRatioOfRoundMedians: round2(g.rps / t.rps),
      guardedRps: g.rps,
      unguardedRps: u.rps,
      nestThrottlerRps: t.rps,
      latencyOfferedRps: OFFERED_RATE,
      guardedP50Ms: fixed.get('guarded')!.p50Ms,
      guardedP99Ms: fixed.get('guarded')!.p99Ms,
      unguardedP50Ms: fixed.get('unguarded')!.p50Ms,
      unguardedP99Ms: fixed.get('unguarded')!.p99Ms,
      nestThrottlerP50Ms: fixed.get('throttler')!.p50Ms,
      nestThrottlerP99Ms: fixed.get('throttler')!.p99Ms,
      // Answers that were not 2xx (e.g. 503 STORE_UNAVAILABLE when the guard's 50 ms Redis deadline
      // trips under load) or socket errors, in the median peak runs, the fixed-rate runs, the alternating blocks and the crossovers: should be 0.
      httpNon2xxOrErrors: rejected,
      guardedNon2xxAtPeak: g.non2xx,
      connections: CONNECTIONS,
      secondsPerMeasurement: seconds,
      peakRounds: rounds,
      alternatingBlocks: blockCount,
      secondsPerBlockRun: blockSeconds,
      // The vCPU both servers of each block were pinned to (-1: unpinned), the same for both ratios.
      alternatingBlockCpus: blockCpus,
      alternatingBlocksPinned: blocksPinned,
      secondsPerPeakRound: roundSeconds,
      peakRpsRounds: Object.fromEntries([...byMode].map(([mode, runs]) => [mode, runs.map((l) => l.rps)])),
      peak: Object.fromEntries(peak),
      atOfferedRate: Object.fromEntries(fixed),
      // What the servers printed (e.g. the guard's circuit breaker opening), when any answer failed.
      serverLogTail:
        rejected > 0
          ? Object.fromEntries([...[...servers].map(([mode, server]) => [mode, server] as const), ...abServers.map((server, i) => [`crossover ${i + 1}`, server] as const)].map(([label, server]) => [label, server.output().trim().split('\n').slice(-20)]))
          : undefined,
    };
  } finally {
    await Promise.all([...servers.values(), ...abServers].map((s) => s.stop()));
    await deleteRedisPrefix(prefix, REDIS_URL);
    // The throttler's storage wraps each key in a hash tag: `{<key>:<throttler>}:hits`.
    await deleteRedisPrefix(`{${prefix}`, REDIS_URL);
  }
}

/** Three real API processes on one database and one Redis prefix. */
async function multiInstanceFigures(quick: boolean): Promise<Record<string, unknown>> {
  const db = await createBenchDatabase();
  const rootKey = issueSecret(ROOT_KEY_PREFIX).secret;
  let api: Awaited<ReturnType<typeof startApiProcesses>> | undefined;
  try {
    api = await startApiProcesses({ databaseUrl: db.url, count: 3, rootKey, redisUrl: REDIS_URL, redisPrefix: `tgbench:api:${randomBytes(4).toString('hex')}:` });
    const urls = api.urls;
    const call = (url: string, method: string, path: string, json?: unknown) => http(`${url}${path}`, { method, json, token: rootKey });
    const echo = (url: string, key: string) => fetch(`${url}/v1/demo/echo`, { headers: { authorization: `Bearer ${key}` } });

    // Over-admission: 600 concurrent requests, round-robin over the three, at a key allowed 100.
    const plan = await call(urls[0], 'POST', '/v1/plans', {
      name: 'bench-hundred',
      limits: [
        { name: 'burst', algorithm: 'token_bucket', limit: 1, windowMs: 3_600_000, burst: 100 },
        { name: 'sustained', algorithm: 'sliding_window', limit: 1000, windowMs: 3_600_000 },
      ],
    });
    if (plan.status !== 201) throw new Error(`POST /v1/plans: ${plan.status} ${JSON.stringify(plan.body)}`);
    const rounds = quick ? 3 : 5;
    const burst = async (label: string): Promise<Record<string, number>> => {
      const key = await call(urls[0], 'POST', '/v1/keys', { name: `bench-hundred-${label}`, planId: plan.body.id });
      const statuses = await Promise.all(
        Array.from({ length: 600 }, async (_, i) => {
          const response = await echo(urls[i % 3], key.body.key);
          await response.arrayBuffer();
          return response.status;
        }),
      );
      const tally: Record<string, number> = {};
      for (const status of statuses) tally[status] = (tally[status] ?? 0) + 1;
      console.log(`  600 concurrent at a limit of 100, ${label}: ${JSON.stringify(tally)}`);
      await sleep(1500); // let a breaker opened by this round close before the next
      return tally;
    };
    // The first burst after the processes start runs on cold code (V8 has not optimized the guard
    // yet) and, on this 2-core machine, is the one that tends to miss the strict 50 ms deadline: it
    // is reported apart (overAdmissionWarmupRound), as the other suites' warm-ups are not measured.
    const warmupRound = await burst('warm-up round');
    const admissionRounds: Array<Record<string, number>> = [];
    for (let round = 0; round < rounds; round++) admissionRounds.push(await burst(`round ${round + 1}`));
    const admitted = admissionRounds.map((t) => t['200'] ?? 0);

    // Propagation: PATCH a key's limit through one instance, poll the other two until they
    // advertise the new limit; ms from the PATCH's answer to the first answer with the new limit.
    const steady = (limit: number) => ({ name: 'steady', algorithm: 'sliding_window', limit, windowMs: 3_600_000 });
    const propPlan = await call(urls[0], 'POST', '/v1/plans', { name: 'bench-propagation', limits: [steady(100_000)] });
    const propKey = await call(urls[0], 'POST', '/v1/keys', { name: 'bench-propagation', planId: propPlan.body.id });
    for (const url of urls) await (await echo(url, propKey.body.key)).arrayBuffer(); // cached everywhere
    const reps = quick ? 20 : 50;
    const samples: number[] = [];
    let notEnforced = 0;
    for (let rep = 0; rep < reps; rep++) {
      const limit = 100_001 + rep;
      const via = rep % 3;
      const patched = await call(urls[via], 'PATCH', `/v1/keys/${propKey.body.id}`, { limits: [steady(limit)] });
      if (patched.status !== 200) throw new Error(`PATCH /v1/keys: ${patched.status} ${JSON.stringify(patched.body)}`);
      const since = performance.now();
      const others = urls.filter((_, i) => i !== via);
      await Promise.all(
        others.map(async (url) => {
          for (;;) {
            const response = await echo(url, propKey.body.key);
            await response.arrayBuffer();
            if (response.headers.get('ratelimit-policy')?.includes(`;q=${limit};`)) {
              samples.push(performance.now() - since);
              return;
            }
            if (performance.now() - since > 5000) {
              notEnforced++;
              samples.push(5000);
              return;
            }
          }
        }),
      );
      await sleep(20);
    }
    return {
      // Over-admission is a safety property: the warm-up round counts too.
      overAdmission: Math.max(0, ...[warmupRound['200'] ?? 0, ...admitted].map((a) => a - 100)),
      underAdmission: Math.max(0, ...admitted.map((a) => 100 - a)),
      overAdmissionRounds: admissionRounds,
      overAdmissionWarmupRound: warmupRound,
      propagationP50Ms: round2(percentile(samples, 50)),
      propagationP99Ms: round2(percentile(samples, 99)),
      propagationMaxMs: round2(Math.max(...samples)),
      propagationSamples: samples.length,
      propagationNotEnforcedIn5s: notEnforced,
    };
  } finally {
    await api?.stop();
    if (api) await deleteRedisPrefix(api.redisPrefix, REDIS_URL);
    await db.drop();
  }
}

export async function run(opts: { quick: boolean }): Promise<Record<string, unknown>> {
  const build = buildApi();
  if (!build.ok) console.warn(`guard bench: the API build failed; using the existing dist:\n${build.message}`);
  const httpResults = await httpFigures(opts.quick);
  const multi = await multiInstanceFigures(opts.quick);
  return { ...httpResults, ...multi, apiBuild: build.ok ? 'ok' : 'failed (existing dist used)' };
}
