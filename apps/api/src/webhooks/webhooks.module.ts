import { Module } from '@nestjs/common';
import { KeyExpiryScanner } from './key-expiry.scanner';
import { WebhookDeliveryWorker } from './webhook-delivery.worker';
import { WebhookEvents } from './webhook-events';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhooksService, WebhookEvents, WebhookDeliveryWorker, KeyExpiryScanner],
  exports: [WebhookEvents, WebhookDeliveryWorker, KeyExpiryScanner],
})
export class WebhooksModule {}
