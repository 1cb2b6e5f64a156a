import { z } from 'zod';

export const ROLES = ['admin', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const LoginInputSchema = z.strictObject({
  email: z.email().max(254),
  password: z.string().min(1).max(1024),
});

export const MeSchema = z.object({
  kind: z.enum(['admin_user', 'root_key']),
  id: z.string(),
  email: z.string().optional(),
  role: z.enum(ROLES),
});
export type Me = z.infer<typeof MeSchema>;
