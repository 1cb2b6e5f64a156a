import { Injectable } from '@nestjs/common';
import type { Plan, PlanInputSchema, PlanPatchSchema } from '@tollgate/contracts';
import type { z } from 'zod';
import type { AuditContext } from '../auth/actor';
import { ApiError } from '../http/api-error';
import { LimitInvalidation } from '../infra/limit-invalidation';
import { PlansRepository } from './plans.repository';

@Injectable()
export class PlansService {
  constructor(
    private readonly plans: PlansRepository,
    private readonly invalidation: LimitInvalidation,
  ) {}

  create(input: z.output<typeof PlanInputSchema>, audit: AuditContext): Promise<Plan> {
    return this.plans.create({ ...input, quota: input.quota ?? null }, audit);
  }

  list(): Promise<Plan[]> {
    return this.plans.list();
  }

  async get(id: string): Promise<Plan> {
    const plan = await this.plans.find(id);
    if (!plan) throw ApiError.notFound('Plan');
    return plan;
  }

  /** Commits, then tells every instance to drop its cached limits for keys on this plan. */
  async update(id: string, patch: z.output<typeof PlanPatchSchema>, audit: AuditContext): Promise<Plan> {
    const plan = await this.plans.update(id, patch, audit);
    await this.invalidation.publish({ kind: 'plan', id });
    return plan;
  }

  async delete(id: string, audit: AuditContext): Promise<void> {
    await this.plans.delete(id, audit);
    await this.invalidation.publish({ kind: 'plan', id });
  }
}
