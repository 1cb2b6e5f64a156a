import type { ChildProcess } from 'node:child_process';

/**
 * Resolves with a child's exit code (1 when it was killed by a signal), also when it has already
 * exited: an 'exit' listener added after the event would wait forever. (npm start once awaited two
 * builds one after the other, and hung when the second had finished first.)
 */
export function exited(child: ChildProcess): Promise<number> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  if (child.signalCode !== null) return Promise.resolve(1);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code ?? 1)));
}
