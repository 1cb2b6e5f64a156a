import { Injectable } from '@nestjs/common';
import type { Health } from '@tollgate/contracts';
import { RedisConnections } from '../infra/redis.provider';
import { HealthRepository } from './health.repository';

const PROBE_TIMEOUT_MS = 1000;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timeout')), ms).unref())]);
}

@Injectable()
export class HealthService {
  constructor(
    private readonly repository: HealthRepository,
    private readonly redis: RedisConnections,
  ) {}

  async check(): Promise<Health> {
    const [postgres, redis] = await Promise.all([
      within(this.repository.ping(), PROBE_TIMEOUT_MS).then(() => 'up' as const, () => 'down' as const),
      within(this.redis.client.ping(), PROBE_TIMEOUT_MS).then(() => 'up' as const, () => 'down' as const),
    ]);
    return { status: postgres === 'up' && redis === 'up' ? 'ok' : 'down', postgres, redis };
  }
}
