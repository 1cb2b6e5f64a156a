import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AppModule } from './app.module';
import type { Env } from './config/env';
import { ProblemFilter } from './http/problem.filter';
import { createLogger, PinoNestLogger } from './infra/logger';

export const MAX_BODY_BYTES = 64 * 1024;

export interface CreateAppOptions {
  /** A pino logger to use instead of one on stdout, e.g. to capture logs in tests. */
  logger?: Logger;
}

/** Builds the API (not yet listening): used by main.ts and by the e2e tests alike. */
export async function createApp(env: Env, options: CreateAppOptions = {}): Promise<NestFastifyApplication> {
  const logger = options.logger ?? createLogger(env.LOG_LEVEL);
  const adapter = new FastifyAdapter({
    loggerInstance: logger,
    bodyLimit: MAX_BODY_BYTES,
    // A caller's X-Request-Id is kept (trimmed) so traces join up; otherwise we mint one.
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
    },
    // Client IPs (per-IP login limits) come from X-Forwarded-For only when a local or private proxy sent it.
    trustProxy: ['loopback', 'linklocal', 'uniquelocal'],
    // One line per request (on response, below) instead of Fastify's two. (Through a LogController:
    // Fastify 5.11 deprecates the top-level disableRequestLogging and warns at every start.)
    // Fastify accepts only a LogController of its own copy (instanceof), so apps/api pins fastify
    // to the exact version @nestjs/platform-fastify pins: one copy, deduplicated.
    // If the two ever differ, startup fails (FST_ERR_LOG_INVALID_LOG_CONTROLLER), as do the e2e tests.
    logController: new LogController({ disableRequestLogging: true }),
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(env), adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  fastify.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', String(request.id));
  });
  fastify.addHook('onResponse', async (request, reply) => {
    request.log.info({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
  // The API speaks JSON only: any other body type is a 415 rather than a confusing 400.
  fastify.removeContentTypeParser('text/plain');
  app.useGlobalFilters(new ProblemFilter());
  app.enableShutdownHooks();
  return app;
}
