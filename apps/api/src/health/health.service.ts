import { Injectable, Optional } from '@nestjs/common';
import { KeyVerifier } from '@tollgate/nest-guard';
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
    @Optional() private readonly verifier?: KeyVerifier,
  ) {}

  async check(): Promise<Health> {
    const [postgres, redis] = await Promise.all([
      within(this.repository.ping(), PROBE_TIMEOUT_MS).then(() => 'up' as const, () => 'down' as const),
      within(this.redis.client.ping(), PROBE_TIMEOUT_MS).then(() => 'up' as const, () => 'down' as const),
    ]);
    if (postgres === 'down' || redis === 'down') return { status: 'down', postgres, redis };
    // Both answer a ping, yet rate limiting may still be running on its fail mode (breaker open
    // after timeouts) or with stale caches (invalidations not being received): say so. probe()
    // first lets a breaker that is due for a probe check Redis now (a PING through its deadline),
    // so an idle instance does not stay "degraded" after Redis is back until some request comes.
    const guard = await this.verifier?.probe();
    const degraded = guard !== undefined && (guard.breaker !== 'closed' || guard.invalidation === 'lost');
    return { status: degraded ? 'degraded' : 'ok', postgres, redis, ...(guard ? { rateLimiting: { breaker: guard.breaker, invalidation: guard.invalidation } } : {}) };
  }
}
