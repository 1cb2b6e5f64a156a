/**
 * Polls `check` every `intervalMs` until it returns true; throws `timed out waiting for <what>`
 * after `timeoutMs`. `check` may be sync or async.
 */
export async function waitFor(check: () => boolean | Promise<boolean>, options: { what?: string; timeoutMs?: number; intervalMs?: number } = {}): Promise<void> {
  const { what = 'a condition', timeoutMs = 8000, intervalMs = 50 } = options;
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
