import { Injectable } from '@nestjs/common';
import { DEFAULT_QUOTA_THRESHOLDS, type Webhook, type WebhookInputSchema } from '@tollgate/contracts';
import type { z } from 'zod';
import type { AuditContext } from '../auth/actor';
import { ApiError } from '../http/api-error';
import { WebhookEvents } from './webhook-events';
import { newWebhookSecret } from './webhook-signature';
import { WebhooksRepository } from './webhooks.repository';

@Injectable()
export class WebhooksService {
  constructor(
    private readonly repository: WebhooksRepository,
    private readonly events: WebhookEvents,
  ) {}

  /** The signing secret is returned here, once; deliveries carry its HMAC, never the secret. */
  async create(input: z.output<typeof WebhookInputSchema>, audit: AuditContext): Promise<Webhook & { secret: string }> {
    const secret = newWebhookSecret();
    const webhook = await this.repository.create({ url: input.url, events: input.events, thresholds: input.thresholds ?? DEFAULT_QUOTA_THRESHOLDS, secret }, audit);
    await this.events.refresh();
    return { ...webhook, secret };
  }

  list() {
    return this.repository.list();
  }

  async get(id: string): Promise<Webhook> {
    const webhook = await this.repository.find(id);
    if (!webhook) throw ApiError.notFound('Webhook');
    return webhook;
  }

  async delete(id: string, audit: AuditContext): Promise<void> {
    await this.repository.delete(id, audit);
    await this.events.refresh();
  }

  async deliveries(id: string) {
    await this.get(id);
    return this.repository.deliveries(id, 50);
  }
}
