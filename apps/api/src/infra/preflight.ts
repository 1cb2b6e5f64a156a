import Redis from 'ioredis';
import { Client } from 'pg';
import { redactUrl } from '../config/env';

export class PreflightError extends Error {}

const HOW_TO_START = 'Start them with `docker compose up -d postgres redis` (or your local services).';

/**
 * Checks that Postgres and Redis answer before the app boots, so a wrong URL is one readable
 * line instead of a stack trace from deep inside a driver.
 */
export async function preflight(databaseUrl: string, redisUrl: string): Promise<void> {
  const pg = new Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await pg.connect();
    await pg.query('SELECT 1');
  } catch (error) {
    if ((error as { code?: string }).code === '3D000') {
      throw new PreflightError(`Postgres at ${redactUrl(databaseUrl)} has no such database (${describe(error)}). Create and migrate it with \`npm run db:migrate\`.`);
    }
    throw new PreflightError(`Cannot reach Postgres at ${redactUrl(databaseUrl)} (${describe(error)}). ${HOW_TO_START}`);
  } finally {
    await pg.end().catch(() => undefined);
  }

  const redis = new Redis(redisUrl, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // ioredis rejects connect() with a generic "Connection is closed"; the 'error' event has the cause.
  let cause: unknown;
  redis.on('error', (error) => (cause ??= error));
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new PreflightError(`Cannot reach Redis at ${redactUrl(redisUrl)} (${describe(cause ?? error)}). ${HOW_TO_START}`);
  } finally {
    redis.disconnect();
  }
}

function describe(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  return (code ? `${code}: ` : '') + (message ?? String(error)).split('\n')[0];
}
