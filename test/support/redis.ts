import { randomBytes } from 'node:crypto';

/** A key prefix no other suite uses, so suites share one Redis without seeing each other's state. */
export function uniqueRedisPrefix(label = 'test'): string {
  return `tgtest:${label}:${randomBytes(4).toString('hex')}:`;
}
