import { z } from 'zod';
import { FailModeSchema, LimitInputSchema, LimitListSchema, QuotaInputSchema } from './limits';

export const PlanInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(64),
  description: z.string().max(1024).optional(),
  limits: LimitListSchema.default([]),
  quota: QuotaInputSchema.optional(),
  failMode: FailModeSchema.default('closed'),
});
export type PlanInput = z.input<typeof PlanInputSchema>;

export const PlanPatchSchema = z.strictObject({
  name: z.string().trim().min(1).max(64).optional(),
  description: z.string().max(1024).nullable().optional(),
  limits: LimitListSchema.optional(),
  quota: QuotaInputSchema.nullable().optional(),
  failMode: FailModeSchema.optional(),
});
export type PlanPatch = z.input<typeof PlanPatchSchema>;

export const PlanSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  limits: z.array(LimitInputSchema.required({ scope: true })),
  quota: z.object({ limit: z.number(), period: z.enum(['day', 'month']), resetDay: z.number() }).nullable(),
  failMode: FailModeSchema,
  keyCount: z.number().int(),
  version: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Plan = z.infer<typeof PlanSchema>;
