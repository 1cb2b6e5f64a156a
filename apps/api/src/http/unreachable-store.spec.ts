import { describe, expect, it } from 'vitest';
import { unreachableStore } from './unreachable-store';

class MaxRetriesPerRequestError extends Error {
  override name = 'MaxRetriesPerRequestError';
}

describe('unreachableStore', () => {
  it('recognises ioredis errors for a command it could not send or get answered', () => {
    expect(unreachableStore(new MaxRetriesPerRequestError('Reached the max retries per request limit (which is 1).'))).toBe('Redis');
    expect(unreachableStore(new Error("Stream isn't writeable and enableOfflineQueue options is false"))).toBe('Redis');
    expect(unreachableStore(new Error('Connection is closed.'))).toBe('Redis');
  });

  it('recognises Prisma errors for a database out of reach, also wrapped as a cause', () => {
    expect(unreachableStore(Object.assign(new Error("Can't reach database server"), { name: 'PrismaClientKnownRequestError', code: 'P1001', clientVersion: '7' }))).toBe('Postgres');
    expect(unreachableStore(Object.assign(new Error('init'), { name: 'PrismaClientInitializationError' }))).toBe('Postgres');
    const adapter = { name: 'PrismaClientKnownRequestError', clientVersion: '7', code: 'P2010', meta: { driverAdapterError: { cause: { code: 'ECONNREFUSED' } } } };
    expect(unreachableStore(adapter)).toBe('Postgres');
    expect(unreachableStore(new Error('outer', { cause: Object.assign(new Error('inner'), { code: 'P1017' }) }))).toBe('Postgres');
  });

  it('leaves everything else alone: a 500 stays a 500', () => {
    expect(unreachableStore(new Error('boom'))).toBeUndefined();
    expect(unreachableStore(Object.assign(new Error('unique'), { name: 'PrismaClientKnownRequestError', code: 'P2002', clientVersion: '7' }))).toBeUndefined();
    // A refused connection outside Prisma (say a webhook target) is not our database.
    expect(unreachableStore(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBeUndefined();
    expect(unreachableStore(null)).toBeUndefined();
    expect(unreachableStore('text')).toBeUndefined();
  });
});
