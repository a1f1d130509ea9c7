import { showUrl, urlPlace } from '../../src/base/redact/index.js';
import type { SinkDeps, SinkFactory } from '../../src/sink/sink.js';
import { webhookConfigSchema, type WebhookConfig } from './config.js';
import { createWebhookSink } from './sink.js';
export { webhookConfigSchema } from './config.js';
export { createWebhookSink } from './sink.js';
export { verifyWebhookSignature } from './verify-webhook-signature.js';

/**
 * `sink: { type: webhook, url, secret, state?, timeoutMs?, batchSize?, headers?, retry? }`:
 * signed JSON batches POSTed to a receiver; at-least-once with an `Idempotency-Key`.
 */
export const webhookSinkFactory = {
  type: 'webhook',
  configSchema: webhookConfigSchema,
  create: (config: WebhookConfig, deps: SinkDeps) => createWebhookSink(config, deps),
  describe: (config: WebhookConfig) => ({
    key: 'sink.url',
    service: 'the webhook receiver',
    shown: showUrl(config.url),
    lockName: `webhook:${urlPlace(config.url)}`,
  }),
} satisfies SinkFactory<WebhookConfig>;
