import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { exited } from './child-exit';

describe('exited', () => {
  it('resolves with the exit code of a child that is still running', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => process.exit(3), 100)']);
    await expect(exited(child)).resolves.toBe(3);
  });

  it('resolves for a child that exited before it was asked (the race that hung npm start)', async () => {
    const child = spawn(process.execPath, ['-e', 'process.exit(0)']);
    await once(child, 'exit');
    await expect(exited(child)).resolves.toBe(0);
  });

  it('resolves 1 for a child killed by a signal', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)']);
    child.kill('SIGTERM');
    await once(child, 'exit');
    await expect(exited(child)).resolves.toBe(1);
  });
});
