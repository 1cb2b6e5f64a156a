import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pino from 'pino';
import { Writable } from 'node:stream';
import { createApp } from '../../apps/api/src/app.factory';
import { parseEnv, type Env } from '../../apps/api/src/config/env';
import { deleteRedisPrefix, uniqueRedisPrefix } from './redis';
import { TEST_REDIS_URL } from './test-env';

export interface TestApp {
  app: NestFastifyApplication;
  url: string;
  env: Env;
  /** Every log line the app wrote, as raw JSON text: for asserting what never gets logged. */
  logs: string[];
  close(): Promise<void>;
}

/** The real API, in-process, listening on a free port, on the given test database. */
export async function startTestApp(databaseUrl: string, overrides: Record<string, string> = {}): Promise<TestApp> {
  const env = parseEnv({
    DATABASE_URL: databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_KEY_PREFIX: uniqueRedisPrefix('app'),
    LOG_LEVEL: 'info',
    PORT: '0',
    HOST: '127.0.0.1',
    ...overrides,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(chunk.toString());
      callback();
    },
  });
  const app = await createApp(env, { logger: pino({ level: env.LOG_LEVEL }, sink) });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  // Closing also deletes what the app left in Redis under its prefix (limit state, usage buckets).
  const close = async () => {
    await app.close();
    await deleteRedisPrefix(env.REDIS_KEY_PREFIX);
  };
  return { app, url: `http://127.0.0.1:${port}`, env, logs, close };
}
