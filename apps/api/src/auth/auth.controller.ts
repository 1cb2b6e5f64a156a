import { Body, Controller, Get, HttpCode, Post, Req, Res, UseGuards } from '@nestjs/common';
import { Throttle } from '@nestjs/throttler';
import { LoginInputSchema, type Me } from '@tollgate/contracts';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';
import { hashSecret } from '../keys/key-secret';
import { ZodValidationPipe } from '../http/zod-validation.pipe';
import type { Actor } from './actor';
import { CurrentActor, type AdminRequest } from './actor.decorator';
import { AuthRepository } from './auth.repository';
import { AuthService } from './auth.service';
import { clearedSessionCookie, readCookie, SESSION_COOKIE, sessionCookie } from './cookies';
import { LoginThrottlerGuard } from './login-throttler.guard';
import { Public } from './public.decorator';

export const LOGIN_ATTEMPTS_PER_MINUTE = 10;

@Controller('v1/auth')
export class AuthController {
  constructor(
    private readonly auth: AuthService,
    private readonly repository: AuthRepository,
  ) {}

  /** Per-IP: the 11th attempt within a minute is a 429, counted in Redis across instances. */
  @Public()
  @Post('login')
  @HttpCode(204)
  @UseGuards(LoginThrottlerGuard)
  @Throttle({ login: { limit: LOGIN_ATTEMPTS_PER_MINUTE, ttl: 60_000 } })
  async login(@Body(new ZodValidationPipe(LoginInputSchema)) body: z.output<typeof LoginInputSchema>, @Req() request: AdminRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const token = await this.auth.login(body.email, body.password);
    reply.header('set-cookie', sessionCookie(token, request.protocol === 'https'));
  }

  @Public()
  @Post('logout')
  @HttpCode(204)
  async logout(@Req() request: AdminRequest, @Res({ passthrough: true }) reply: FastifyReply) {
    const token = readCookie(request.headers.cookie, SESSION_COOKIE);
    if (token) {
      const session = await this.repository.findSession(hashSecret(token));
      await this.auth.logout(session?.sessionId);
    }
    reply.header('set-cookie', clearedSessionCookie());
  }

  @Get('me')
  me(@CurrentActor() actor: Actor): Me {
    return { kind: actor.kind, id: actor.id, role: actor.role, ...(actor.email ? { email: actor.email } : {}) };
  }
}
