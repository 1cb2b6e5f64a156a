import { Injectable } from '@nestjs/common';
import type { Key, KeyInputSchema, KeyPatchSchema, KeyWithSecret, ListKeysQuerySchema } from '@tollgate/contracts';
import type { z } from 'zod';
import type { AuditContext } from '../auth/actor';
import { ApiError } from '../http/api-error';
import { LimitInvalidation } from '../infra/limit-invalidation';
import { DEFAULT_KEY_PREFIX, issueSecret } from './key-secret';
import { KeysRepository } from './keys.repository';

function futureDate(iso: string, path: string): Date {
  const date = new Date(iso);
  if (date.getTime() <= Date.now()) throw ApiError.validation([{ path, message: 'must be in the future' }]);
  return date;
}

@Injectable()
export class KeysService {
  constructor(
    private readonly keys: KeysRepository,
    private readonly invalidation: LimitInvalidation,
  ) {}

  /** The plaintext secret is in this response and nowhere else, ever. */
  async create(input: z.output<typeof KeyInputSchema>, audit: AuditContext): Promise<KeyWithSecret> {
    const secret = issueSecret(input.prefix ?? DEFAULT_KEY_PREFIX);
    const key = await this.keys.create(
      {
        hash: secret.hash,
        start: secret.start,
        prefix: input.prefix ?? DEFAULT_KEY_PREFIX,
        name: input.name,
        planId: input.planId,
        ownerId: input.ownerId ?? null,
        expiresAt: input.expiresAt ? futureDate(input.expiresAt, 'expiresAt') : null,
        meta: input.meta ?? null,
        limits: input.limits ?? [],
      },
      audit,
    );
    return { ...key, key: secret.secret };
  }

  list(query: z.output<typeof ListKeysQuerySchema>) {
    return this.keys.page(query);
  }

  async get(id: string): Promise<Key> {
    const key = await this.keys.find(id);
    if (!key) throw ApiError.notFound('Key');
    return key;
  }

  async update(id: string, patch: z.output<typeof KeyPatchSchema>, audit: AuditContext): Promise<Key> {
    const key = await this.keys.update(
      id,
      {
        ...patch,
        expiresAt: patch.expiresAt === undefined ? undefined : patch.expiresAt === null ? null : futureDate(patch.expiresAt, 'expiresAt'),
      },
      audit,
    );
    await this.invalidation.publish({ kind: 'key', id });
    return key;
  }

  async rotate(id: string, gracePeriodMs: number, audit: AuditContext): Promise<KeyWithSecret> {
    const { key, secret } = await this.keys.rotate(id, issueSecret, new Date(Date.now() + gracePeriodMs), audit);
    await this.invalidation.publish({ kind: 'key', id });
    return { ...key, key: secret.secret };
  }

  async revoke(id: string, audit: AuditContext): Promise<void> {
    await this.keys.revoke(id, audit);
    await this.invalidation.publish({ kind: 'key', id });
  }
}
