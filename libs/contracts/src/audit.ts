import { z } from 'zod';
import { queryInt } from './query';

export const AuditQuerySchema = z.strictObject({
  targetId: z.string().min(1).max(64).optional(),
  cursor: z.string().min(1).max(256).optional(),
  limit: queryInt(1, 100, 50),
});

export const AuditEntrySchema = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
