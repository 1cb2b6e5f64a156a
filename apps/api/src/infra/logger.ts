import type { LoggerService } from '@nestjs/common';
import pino, { type Logger } from 'pino';

/**
 * One pino logger for the process. Secrets never reach it: request logs carry method, url and
 * ids only (no headers, no bodies), and the redact list covers the places a secret could hide.
 */
export function createLogger(level: string): Logger {
  // Buffered, asynchronous writes: a burst of requests must not stall the event loop on a slow
  // stdout pipe (pino flushes what is buffered when the process exits).
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  return pino(
    {
    level,
    base: { service: 'tollgate-api' },
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie', 'key', 'secret', 'password', '*.key', '*.secret', '*.password'],
      censor: '[redacted]',
    },
  },
    destination,
  );
}

/** Routes Nest's own log lines (boot, module init) through pino. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}
  log(message: unknown, context?: string) {
    this.logger.info({ context }, String(message));
  }
  error(message: unknown, trace?: string, context?: string) {
    this.logger.error({ context, trace }, String(message));
  }
  warn(message: unknown, context?: string) {
    this.logger.warn({ context }, String(message));
  }
  debug(message: unknown, context?: string) {
    this.logger.debug({ context }, String(message));
  }
  verbose(message: unknown, context?: string) {
    this.logger.trace({ context }, String(message));
  }
}
