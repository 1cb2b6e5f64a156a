import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../http/api-error';
import { hashSecret, ROOT_KEY_PREFIX } from '../keys/key-secret';
import type { AdminRequest } from './actor.decorator';
import { AuthRepository } from './auth.repository';
import { readCookie, SESSION_COOKIE } from './cookies';
import { IS_PUBLIC } from './public.decorator';

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Every admin route needs a root key (`Authorization: Bearer tgr_...`) or a dashboard session
 * cookie. Viewers may only read. Routes marked @Public() (health, docs, login, the demo route
 * guarded by API keys) skip this.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthRepository,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AdminRequest>();

    const authorization = request.headers.authorization;
    if (authorization) {
      const match = /^Bearer\s+(\S+)$/i.exec(authorization);
      const token = match?.[1];
      if (!token || !token.startsWith(`${ROOT_KEY_PREFIX}_`)) throw new ApiError(401, 'UNAUTHORIZED', 'Send a root key as `Authorization: Bearer tgr_...`.');
      const hash = hashSecret(token);
      const rootKey = await this.auth.findRootKeyByHash(hash);
      if (!rootKey) throw new ApiError(401, 'UNAUTHORIZED', 'The root key is not valid.');
      request.actor = { kind: 'root_key', id: rootKey.id, role: rootKey.role };
      request.credentialValid = async () => (await this.auth.findRootKeyByHash(hash)) !== null;
    } else {
      const token = readCookie(request.headers.cookie, SESSION_COOKIE);
      const hash = token ? hashSecret(token) : undefined;
      const session = hash ? await this.auth.findSession(hash) : null;
      if (!session || !hash) throw new ApiError(401, 'UNAUTHORIZED', token ? 'Your session has expired; log in again.' : 'Log in or send a root key.');
      request.actor = { kind: 'admin_user', id: session.userId, role: session.role, email: session.email, sessionId: session.sessionId };
      request.credentialValid = async () => (await this.auth.findSession(hash)) !== null;
    }

    if (request.actor.role === 'viewer' && !READ_METHODS.has(request.method)) {
      throw new ApiError(403, 'FORBIDDEN', 'Viewers can read but not change anything.');
    }
    return true;
  }
}
