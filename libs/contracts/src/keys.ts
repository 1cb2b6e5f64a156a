import { z } from 'zod';
import { queryInt } from './query';
import { ALGORITHMS, LIMIT_SCOPES, LimitInputSchema, LimitListSchema } from './limits';

export const KEY_PREFIX_PATTERN = /^[a-z0-9]{1,8}$/;
export const MAX_META_BYTES = 4096;
export const MAX_GRACE_PERIOD_MS = 2_592_000_000;

const MetaSchema = z
  .record(z.string(), z.unknown())
  .refine((meta) => Buffer.byteLength(JSON.stringify(meta), 'utf8') <= MAX_META_BYTES, `must be at most ${MAX_META_BYTES} bytes as JSON`);

const IsoDateSchema = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });

export const KeyInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(128),
  planId: z.string().min(1).max(64),
  ownerId: z.string().min(1).max(128).optional(),
  prefix: z.string().regex(KEY_PREFIX_PATTERN, 'must match /^[a-z0-9]{1,8}$/').optional(),
  expiresAt: IsoDateSchema.optional(),
  meta: MetaSchema.optional(),
  limits: LimitListSchema.optional(),
});
export type KeyInput = z.input<typeof KeyInputSchema>;

export const KeyPatchSchema = z.strictObject({
  name: z.string().trim().min(1).max(128).optional(),
  enabled: z.boolean().optional(),
  expiresAt: IsoDateSchema.nullable().optional(),
  meta: MetaSchema.nullable().optional(),
  planId: z.string().min(1).max(64).optional(),
  ownerId: z.string().min(1).max(128).nullable().optional(),
  limits: LimitListSchema.optional(),
});
export type KeyPatch = z.input<typeof KeyPatchSchema>;

export const RotateKeyInputSchema = z.strictObject({
  gracePeriodMs: z.number().int().min(0).max(MAX_GRACE_PERIOD_MS).optional(),
});

/** A key's status as the dashboard shows it: `enabled` and `disabled` are keys not yet expired. */
export const KEY_STATUSES = ['enabled', 'disabled', 'expired'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];

/** A key's status at `nowMs`, as verification answers it: expired (expiry or rotation grace passed) before disabled. */
export function keyStatus(enabled: boolean, expiresAtMs: number | null, nowMs: number): KeyStatus {
  if (expiresAtMs !== null && expiresAtMs <= nowMs) return 'expired';
  return enabled ? 'enabled' : 'disabled';
}

export const ListKeysQuerySchema = z.strictObject({
  planId: z.string().min(1).max(64).optional(),
  ownerId: z.string().min(1).max(128).optional(),
  q: z.string().min(1).max(128).optional(),
  enabled: z.enum(['true', 'false']).transform((value) => value === 'true').optional(),
  /** What verification would answer now: expired (its expiry or rotation grace has passed) before disabled. */
  status: z.enum(KEY_STATUSES, { message: 'must be one of enabled, disabled, expired' }).optional(),
  cursor: z.string().min(1).max(256).optional(),
  limit: queryInt(1, 100, 20),
});

export const KeySchema = z.object({
  id: z.string(),
  start: z.string(),
  name: z.string(),
  planId: z.string(),
  ownerId: z.string().nullable(),
  enabled: z.boolean(),
  expiresAt: z.string().nullable(),
  meta: z.record(z.string(), z.unknown()).nullable(),
  limits: z.array(LimitInputSchema.required({ scope: true })),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type Key = z.infer<typeof KeySchema>;
export const KeyWithSecretSchema = KeySchema.extend({ key: z.string() });
export type KeyWithSecret = z.infer<typeof KeyWithSecretSchema>;

export const VerifyInputSchema = z.strictObject({
  key: z.string().min(1).max(256),
  cost: z.number().int().min(1).max(1000).optional(),
});
export type VerifyInput = z.input<typeof VerifyInputSchema>;

export const VERIFICATION_CODES = ['VALID', 'NOT_FOUND', 'DISABLED', 'EXPIRED', 'RATE_LIMITED', 'QUOTA_EXCEEDED'] as const;
export type VerificationCode = (typeof VERIFICATION_CODES)[number];

export const VerificationSchema = z.object({
  valid: z.boolean(),
  code: z.enum(VERIFICATION_CODES),
  keyId: z.string().optional(),
  ownerId: z.string().nullable().optional(),
  planId: z.string().optional(),
  limits: z.array(z.object({ name: z.string(), limit: z.number(), remaining: z.number(), resetMs: z.number() })),
  quota: z.object({ limit: z.number(), remaining: z.number(), resetAt: z.string() }).optional(),
  retryAfterMs: z.number().optional(),
  /**
   * VALID under a shaping leaky bucket that admitted the request for later: the caller must wait
   * this long before serving it (the guard does so itself). Absent when nothing is to wait.
   */
  delayMs: z.number().optional(),
});
export type Verification = z.infer<typeof VerificationSchema>;

/**
 * GET /v1/keys/:id/state: where a key's limits and quota stand right now, read without charging
 * or metering anything. `limits` as in a Verification, for every limit of the key.
 */
export const KeyStateSchema = z.object({
  keyId: z.string(),
  status: z.enum(KEY_STATUSES),
  limits: z.array(
    z.object({
      name: z.string(),
      algorithm: z.enum(ALGORITHMS),
      /** Whose counter this is: the key's own, shared by its owner's keys, or by every key of the plan. */
      scope: z.enum(LIMIT_SCOPES),
      /** As in a Verification: the limit's rate, `limit` per `windowMs`. */
      limit: z.number(),
      windowMs: z.number(),
      /** The most the limit holds when unused: `burst` for the buckets and gcra, `limit` for the windows and the log. */
      capacity: z.number(),
      remaining: z.number(),
      /** Until the limit is fully reset (for a fixed window: the end of the window, used or not). */
      resetMs: z.number(),
    }),
  ),
  quota: VerificationSchema.shape.quota,
  /** The store's clock when it was read. */
  at: z.string(),
});
export type KeyState = z.infer<typeof KeyStateSchema>;
