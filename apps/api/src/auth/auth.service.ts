import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ENV } from '../config/config.module';
import type { Env } from '../config/env';
import { ApiError } from '../http/api-error';
import { base58 } from '../infra/base58';
import { hashSecret } from '../keys/key-secret';
import { AuthRepository } from './auth.repository';
import { SESSION_TTL_MS } from './cookies';
import { hashPassword, verifyPassword } from './password';

// Verifying against a real hash even for unknown emails keeps login time from revealing which exist.
const DUMMY_HASH_PROMISE = hashPassword(base58(randomBytes(16)));

@Injectable()
export class AuthService implements OnApplicationBootstrap {
  private readonly logger = new Logger('Auth');

  constructor(
    private readonly repository: AuthRepository,
    @Inject(ENV) private readonly env: Env,
  ) {}

  /** TOLLGATE_ROOT_KEY and TOLLGATE_ADMIN_EMAIL/PASSWORD exist after boot, stored hashed. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.env.TOLLGATE_ROOT_KEY) {
      await this.repository.ensureRootKey(hashSecret(this.env.TOLLGATE_ROOT_KEY), this.env.TOLLGATE_ROOT_KEY.slice(0, 8));
      this.logger.log('Root key from TOLLGATE_ROOT_KEY is active');
    }
    if (this.env.TOLLGATE_ADMIN_EMAIL && this.env.TOLLGATE_ADMIN_PASSWORD) {
      await this.repository.upsertAdmin(this.env.TOLLGATE_ADMIN_EMAIL.toLowerCase(), await hashPassword(this.env.TOLLGATE_ADMIN_PASSWORD), 'admin');
      this.logger.log(`Admin ${this.env.TOLLGATE_ADMIN_EMAIL} is active`);
    }
    await this.repository.deleteExpiredSessions();
  }

  /** Returns the session cookie value (shown to the browser only, stored hashed). */
  async login(email: string, password: string): Promise<string> {
    const user = await this.repository.findUserByEmail(email.toLowerCase());
    const ok = await verifyPassword(password, user?.passwordHash ?? (await DUMMY_HASH_PROMISE));
    if (!user || !ok) throw new ApiError(401, 'UNAUTHORIZED', 'Invalid email or password.');
    const token = base58(randomBytes(32));
    await this.repository.createSession(user.id, hashSecret(token), new Date(Date.now() + SESSION_TTL_MS));
    return token;
  }

  async logout(sessionId: string | undefined): Promise<void> {
    if (sessionId) await this.repository.deleteSession(sessionId);
  }
}
