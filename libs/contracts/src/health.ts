import { z } from 'zod';

export const HealthSchema = z.object({
  status: z.enum(['ok', 'degraded', 'down']),
  postgres: z.enum(['up', 'down']),
  redis: z.enum(['up', 'down']),
  /** The guard's view: its circuit breaker and whether limit changes are being received. */
  rateLimiting: z.object({ breaker: z.enum(['closed', 'open', 'half-open']), invalidation: z.enum(['live', 'lost', 'off']) }).optional(),
});
export type Health = z.infer<typeof HealthSchema>;
