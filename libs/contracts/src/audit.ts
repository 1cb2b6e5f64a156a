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
  /** Who made the change: `admin:<user id>` or `root_key:<root key id>`. */
  actor: z.string(),
  /** The actor as a person reads it: the admin's email or the root key's name; null once that user or key is gone. */
  actorName: z.string().nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;
