/** Prisma's codes for a database it cannot reach or lost: P1001 unreachable, P1002 timed out, P1008 operation timeout, P1017 connection closed, P2024 no pool connection in time. */
const PRISMA_UNREACHABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
/** Socket errors and Postgres' own shutdown codes (57P01 admin shutdown, 57P02 crash, 57P03 cannot connect now). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', '57P01', '57P02', '57P03']);
/** ioredis' errors for a command it could not send or get answered (no offline queue, retries spent). */
const REDIS_UNREACHABLE = /^(Connection is closed\.|Stream isn't writeable|Reached the max retries per request limit)/;

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  meta?: { driverAdapterError?: unknown };
  clientVersion?: unknown;
}

/**
 * Which store an error says is out of reach, if any: the answer is then a 503 (retry shortly),
 * not a 500, since nothing is wrong with the request. Looks through `cause` chains and Prisma's
 * driver-adapter wrapper, at most a few levels deep.
 */
export function unreachableStore(error: unknown): 'Redis' | 'Postgres' | undefined {
  let current: unknown = error;
  let prisma = false;
  for (let depth = 0; depth < 5 && current !== null && typeof current === 'object'; depth++) {
    const e = current as ErrorLike;
    const name = typeof e.name === 'string' ? e.name : '';
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    if (name === 'MaxRetriesPerRequestError' || REDIS_UNREACHABLE.test(message)) return 'Redis';
    if (name.startsWith('PrismaClient') || e.clientVersion !== undefined) prisma = true;
    if (name === 'PrismaClientInitializationError' || PRISMA_UNREACHABLE.has(code)) return 'Postgres';
    if (prisma && CONNECTION_CODES.has(code)) return 'Postgres';
    current = e.meta?.driverAdapterError ?? e.cause;
  }
  return undefined;
}
