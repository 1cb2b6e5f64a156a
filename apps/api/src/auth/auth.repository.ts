import { Injectable } from '@nestjs/common';
import type { Role } from '@tollgate/contracts';
import { PrismaService } from '../infra/prisma.service';
import { newId } from '../infra/ids';

export interface SessionUser {
  sessionId: string;
  userId: string;
  email: string;
  role: Role;
  expiresAt: Date;
}

@Injectable()
export class AuthRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findRootKeyByHash(hash: string): Promise<{ id: string; role: Role } | null> {
    const key = await this.prisma.rootKey.findUnique({ where: { hash }, select: { id: true, role: true, revokedAt: true } });
    return key && !key.revokedAt ? { id: key.id, role: key.role } : null;
  }

  /** Makes sure a root key with this hash exists (TOLLGATE_ROOT_KEY at boot). */
  async ensureRootKey(hash: string, start: string): Promise<void> {
    await this.prisma.rootKey.upsert({
      where: { hash },
      create: { id: newId('root'), hash, start, name: 'TOLLGATE_ROOT_KEY', role: 'admin' },
      update: { revokedAt: null },
    });
  }

  findUserByEmail(email: string) {
    return this.prisma.adminUser.findUnique({ where: { email } });
  }

  /** Bootstrap admin from the environment: created, or its password reset to the configured one. */
  async upsertAdmin(email: string, passwordHash: string, role: Role): Promise<void> {
    await this.prisma.adminUser.upsert({
      where: { email },
      create: { id: newId('usr'), email, passwordHash, role },
      update: { passwordHash, role },
    });
  }

  async createUser(email: string, passwordHash: string, role: Role): Promise<string> {
    const id = newId('usr');
    await this.prisma.adminUser.create({ data: { id, email, passwordHash, role } });
    return id;
  }

  async createSession(userId: string, tokenHash: string, expiresAt: Date): Promise<string> {
    const id = newId('ses');
    await this.prisma.adminSession.create({ data: { id, userId, tokenHash, expiresAt } });
    return id;
  }

  async findSession(tokenHash: string): Promise<SessionUser | null> {
    const session = await this.prisma.adminSession.findUnique({ where: { tokenHash }, include: { user: true } });
    if (!session || session.expiresAt.getTime() <= Date.now()) return null;
    return { sessionId: session.id, userId: session.userId, email: session.user.email, role: session.user.role, expiresAt: session.expiresAt };
  }

  async deleteSession(id: string): Promise<void> {
    await this.prisma.adminSession.deleteMany({ where: { id } });
  }

  async deleteExpiredSessions(): Promise<number> {
    const { count } = await this.prisma.adminSession.deleteMany({ where: { expiresAt: { lte: new Date() } } });
    return count;
  }
}
