import { z } from 'zod';

export const HealthSchema = z.object({
  status: z.enum(['ok', 'degraded', 'down']),
  postgres: z.enum(['up', 'down']),
  redis: z.enum(['up', 'down']),
});
export type Health = z.infer<typeof HealthSchema>;
