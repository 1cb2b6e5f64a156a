import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AppModule } from './app.module';
import type { Env } from './config/env';
import { AllowedMethods } from './http/allowed-methods';
import { ApiError } from './http/api-error';
import { jsonSyntaxError, prototypeKeyPath } from './http/input-text';
import { ProblemFilter, sendProblem } from './http/problem.filter';
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
    // Client IPs (per-IP login limits) come from X-Forwarded-For only when a trusted proxy sent it
    // (TRUST_PROXY; by default loopback and private addresses).
    trustProxy: env.TRUST_PROXY.length ? env.TRUST_PROXY : false,
    // One line per request (on response, below) instead of Fastify's two. (Through a LogController:
    // Fastify 5.11 deprecates the top-level disableRequestLogging and warns at every start.)
    // Fastify accepts only a LogController of its own copy (instanceof), so apps/api pins fastify
    // to the exact version @nestjs/platform-fastify pins: one copy, deduplicated.
    // If the two ever differ, startup fails (FST_ERR_LOG_INVALID_LOG_CONTROLLER), as do the e2e tests.
    logController: new LogController({ disableRequestLogging: true }),
    // Errors Fastify raises before routing (a malformed URL, a path segment past maxParamLength)
    // get the same problem+json as everything else. A segment that long is no id of ours: 404.
    frameworkErrors: (error: Error, request: FastifyRequest, reply: FastifyReply) => {
      const code = (error as { code?: string }).code;
      sendProblem(code === 'FST_ERR_MAX_PARAM_LENGTH' ? new ApiError(404, 'NOT_FOUND', 'Not found.') : error, request, reply);
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(env), adapter, {
    logger: new PinoNestLogger(logger),
    abortOnError: false,
    // The JSON body parser is ours (below), not Nest's copy of Fastify's.
    bodyParser: false,
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
  // Many clients send `content-type: application/json` on every request, also a DELETE or a rotate
  // without a body: an empty body is no body, not malformed JSON. Anything else is parsed as before
  // (Fastify's own parser, which refuses __proto__ and constructor.prototype keys).
  const defaultJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  // Read as bytes and decoded strictly: as a string, Fastify turned invalid UTF-8 into U+FFFD and then
  // refused the body for a length that no longer matched Content-Length, a 400 that named nothing.
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES }, (request, body, done) => {
    let text: string;
    try {
      text = typeof body === 'string' ? body : utf8.decode(body);
    } catch {
      return done(Object.assign(new Error('Body is not valid JSON: it is not valid UTF-8'), { statusCode: 400 }), undefined);
    }
    if (text.trim() === '') return done(null, undefined);
    return defaultJson(request, text, (error, body) => {
      if (!error) return done(null, body);
      // Fastify's parser refuses without saying why. Say it: which key was refused, or where the
      // JSON breaks.
      const refusedKey = prototypeKeyPath(text);
      if (refusedKey) return done(ApiError.validation([{ path: refusedKey, message: 'is not accepted as a field name' }]), undefined);
      const syntax = jsonSyntaxError(text);
      done(syntax ? Object.assign(error, { message: `Body is not valid JSON: ${syntax}` }) : error, undefined);
    });
  });
  // Collected as Nest registers its routes (at init, after this): the filter answers 405 from it.
  const allowedMethods = new AllowedMethods();
  fastify.addHook('onRoute', (route) => allowedMethods.add(route.method, route.url));
  app.useGlobalFilters(new ProblemFilter(allowedMethods));
  app.enableShutdownHooks();
  return app;
}
