// A load generator in a process of its own, for side-by-side runs (bench/guard/side-by-side.ts):
//   node --import tsx bench/guard/load-child.ts <url> <secret> <connections> <seconds>
// Prints `READY` once autocannon is loaded, starts on a line on stdin (so that two of them start
// together), then prints one JSON line: {total, non2xx, errors, duration} and exits.
import autocannon from 'autocannon';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

async function main(): Promise<void> {
  const [url, secret, connections, seconds] = process.argv.slice(2);
  const lines = createInterface({ input: process.stdin });
  console.log('READY');
  await once(lines, 'line');
  lines.close();
  const result = await autocannon({
    url,
    headers: { authorization: `Bearer ${secret}` },
    connections: Number(connections),
    duration: Number(seconds),
  });
  console.log(JSON.stringify({ total: result.requests.total, non2xx: result.non2xx, errors: result.errors + result.timeouts, duration: result.duration }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
