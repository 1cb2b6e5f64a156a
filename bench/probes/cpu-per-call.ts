/**
 * This process's CPU (user + system, µs) per call of `call`, made `calls` times by `inFlight`
 * loops at once, each awaiting its call before making the next: what the probes measure a layer by.
 */
export async function cpuPerCall(call: () => Promise<unknown>, calls: number, inFlight = 64): Promise<number> {
  let started = 0;
  const loop = async () => {
    while (started < calls) {
      started++;
      await call();
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: inFlight }, loop));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}
