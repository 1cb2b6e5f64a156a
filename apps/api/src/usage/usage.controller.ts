import { Controller, Get, Header, OnModuleDestroy, Query, Req, Res } from '@nestjs/common';
import { UsageQuerySchema, UsageStreamQuerySchema, UsageTopQuerySchema } from '@tollgate/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import { UsageLiveFeed } from './usage-live';
import { UsageService } from './usage.service';
import type { AdminRequest } from '../auth/actor.decorator';

/** How often a usage stream checks that its session or root key is still valid. */
export const CREDENTIAL_RECHECK_MS = 5000;

@Controller('v1/usage')
export class UsageController implements OnModuleDestroy {
  constructor(
    private readonly usage: UsageService,
    private readonly live: UsageLiveFeed,
  ) {}

  @Get()
  series(@Query(new ZodValidationPipe(UsageQuerySchema, 'query')) query: z.output<typeof UsageQuerySchema>) {
    return this.usage.series(query);
  }

  @Get('top')
  top(@Query(new ZodValidationPipe(UsageTopQuerySchema, 'query')) query: z.output<typeof UsageTopQuerySchema>) {
    return this.usage.top(query);
  }

  @Get('export.csv')
  @Header('content-type', 'text/csv; charset=utf-8')
  @Header('content-disposition', 'attachment; filename="usage.csv"')
  exportCsv(@Query(new ZodValidationPipe(UsageQuerySchema, 'query')) query: z.output<typeof UsageQuerySchema>) {
    return this.usage.csv(query);
  }

  /**
   * Server-Sent Events: every second with traffic, one `data:` event holding the decisions counted
   * since the previous event (deltas, `ts` = Redis time of the read); a `: heartbeat` comment after
   * 15 s without any. Ends when the client disconnects or the API shuts down.
   */
  @Get('stream')
  async stream(
    @Query(new ZodValidationPipe(UsageStreamQuerySchema, 'query')) query: z.output<typeof UsageStreamQuerySchema>,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const filter = await this.usage.streamFilter(query);
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-request-id': String(request.id),
    });
    // HEAD (which Fastify serves for every GET): the headers, and no stream to keep open.
    if (request.method === 'HEAD') {
      raw.end();
      return;
    }
    raw.write('retry: 2000\n: connected\n\n');
    const unsubscribe = this.live.subscribe({
      accepts: (keyId) => filter.accepts(keyId),
      event: (event) => raw.write(`data: ${JSON.stringify(event)}\n\n`),
      heartbeat: () => raw.write(': heartbeat\n\n'),
      close: () => raw.end(),
    });
    // The stream outlives the request's authentication: a logout, an expired session or a deleted
    // root key ends it within CREDENTIAL_RECHECK_MS (the client's reconnect then meets the 401).
    const credentialValid = (request as AdminRequest).credentialValid;
    const recheck = credentialValid
      ? setInterval(() => {
          credentialValid().then(
            (valid) => {
              if (!valid && !raw.writableEnded) raw.end('event: unauthorized\ndata: {}\n\n');
            },
            () => undefined, // a store hiccup is not a logout: the next check decides
          );
        }, CREDENTIAL_RECHECK_MS)
      : undefined;
    recheck?.unref();
    const stop = () => {
      clearInterval(recheck);
      unsubscribe();
    };
    request.raw.once('close', stop);
    raw.once('close', stop);
    raw.once('error', stop);
  }

  onModuleDestroy(): void {
    this.live.closeAll();
  }
}
