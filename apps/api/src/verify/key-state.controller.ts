import { Controller, Get, Param } from '@nestjs/common';
import { keyStatus, type KeyState } from '@tollgate/contracts';
import { KeyVerifier, type GuardLimit } from '@tollgate/nest-guard';
import { validateLimitParams } from '@tollgate/rate-limit';
import { ApiError } from '../http/api-error';
import { IdPipe } from '../http/id.pipe';
import { KeysRepository } from '../keys/keys.repository';
import { toVerification } from './verification-mapper';

@Controller('v1/keys')
export class KeyStateController {
  constructor(
    private readonly verifier: KeyVerifier,
    private readonly keys: KeysRepository,
  ) {}

  /**
   * Where each of the key's limits and its quota stand now (the question behind "why is this
   * customer getting 429s?"). A cost-0 check through the same verifier as the guard: it charges
   * nothing, counts no usage, and reads the counters the key's successor shares after a rotation.
   */
  @Get(':id/state')
  async state(@Param('id', new IdPipe('Key')) id: string): Promise<KeyState> {
    const record = await this.keys.findForVerificationById(id);
    if (!record) throw ApiError.notFound('Key');
    const result = await this.verifier.inspect(record);
    if (!result) throw new ApiError(503, 'STORE_UNAVAILABLE', 'The rate-limit store is unavailable; try again shortly.', undefined, { 'retry-after': '1' });
    const { limits, quota } = toVerification(result);
    return {
      keyId: record.id,
      status: keyStatus(record.enabled, record.expiresAt, result.nowMs),
      // inspect() checks every limit of the record (names are unique within a key).
      limits: limits.map((limit) => {
        const config = record.limits.find((candidate) => candidate.name === limit.name)!;
        return { name: limit.name, algorithm: config.algorithm, scope: config.scope, limit: limit.limit, windowMs: config.windowMs, capacity: capacityOf(config), remaining: limit.remaining, resetMs: limit.resetMs };
      }),
      ...(quota ? { quota } : {}),
      at: new Date(result.nowMs).toISOString(),
    };
  }
}

/** What a limit holds when unused: a bucket's or gcra's burst (the engine's default when unset), a window's or the log's limit. */
function capacityOf(limit: GuardLimit): number {
  const params = validateLimitParams(limit);
  return params.algorithm === 'token_bucket' || params.algorithm === 'leaky_bucket' || params.algorithm === 'gcra' ? params.burst : params.limit;
}
