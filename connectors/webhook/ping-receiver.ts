import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { reachHttp, servicePolicy } from '../../src/http/index.js';
import { WEBHOOK_TRAITS } from './classify-delivery.js';
import type { WebhookRetryConfig } from './config.js';
import { describeEndpoint } from './errors.js';

interface PingOptions {
  readonly timeoutMs: number;
  readonly retry: WebhookRetryConfig;
  readonly dispatcher: Dispatcher;
  readonly logger: Logger;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random: () => number;
  readonly now: () => number;
}

/**
 * Readiness: the receiver answers at all. Any answer to HEAD counts, a 5xx included (a load
 * balancer warming up, a handler without HEAD): deliveries have their own retries and dead
 * letters. Only a network failure or a timeout that lasts through `retry` counts as down.
 */
export async function pingReceiver(url: string, options: PingOptions): Promise<void> {
  const endpoint = describeEndpoint(url);
  const { retry, logger, ...rest } = options;
  try {
    await reachHttp(url, {
      ...rest,
      policy: servicePolicy(WEBHOOK_TRAITS, retry),
      maxAttempts: retry.maxAttempts,
      onRetry: ({ attempt, maxAttempts, waitMs, verdict }) =>
        logger.warn({ endpoint, attempt, maxAttempts, waitMs, reason: verdict.label }, 'webhook receiver not reached; trying again'),
    });
  } catch (error) {
    throw new Error(`webhook receiver ${endpoint} is unreachable: ${(error as Error).message}`, { cause: error });
  }
}
