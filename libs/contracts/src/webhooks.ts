import { z } from 'zod';

export const WEBHOOK_EVENTS = ['quota.threshold', 'key.expiring', 'ratelimit.exceeded'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const DEFAULT_QUOTA_THRESHOLDS = [80, 90, 100];

export const WebhookInputSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' }).max(2048),
  events: z
    .array(z.enum(WEBHOOK_EVENTS))
    .min(1)
    .refine((events) => new Set(events).size === events.length, 'must not repeat an event'),
  /** Percentages of a key's quota that raise `quota.threshold`, once per crossing per period. */
  thresholds: z
    .array(z.number().int().min(1).max(100))
    .min(1)
    .max(10)
    .refine((values) => new Set(values).size === values.length, 'must not repeat a threshold')
    .optional(),
});
export type WebhookInput = z.input<typeof WebhookInputSchema>;

export const WebhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENTS)),
  thresholds: z.array(z.number()),
  enabled: z.boolean(),
  createdAt: z.string(),
});
export type Webhook = z.infer<typeof WebhookSchema>;
export const WebhookCreatedSchema = WebhookSchema.extend({ secret: z.string() });

export const WebhookDeliverySchema = z.object({
  id: z.string(),
  webhookId: z.string(),
  event: z.enum(WEBHOOK_EVENTS),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  lastStatusCode: z.number().int().nullable(),
  lastError: z.string().nullable(),
  payload: z.unknown(),
  createdAt: z.string(),
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;
