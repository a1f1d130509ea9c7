import type { Logger } from 'pino';
import type { BackfillReporter } from './reporter.js';
import { warningOf } from './reporter.js';

/** Plain structured lines for logs and pipes, one per page and per notable event. */
export function createLogReporter(logger: Logger): BackfillReporter {
  return {
    event: (business, event) => {
      switch (event.type) {
        case 'stream-start':
          return logger.info({ business, stream: event.stream }, 'stream started');
        case 'page-stored':
          return logger.info({ ...event.page }, 'page stored');
        case 'budget-wait':
          return logger.info({ business, waitMs: event.waitMs, reason: 'budget' }, 'waiting');
        case 'retry':
          return logger.info({ business, waitMs: event.waitMs, reason: event.reason }, 'waiting');
        case 'business-end': {
          const { outcome } = event;
          if (outcome.failure === undefined) return logger.info({ business: outcome.business }, 'business done');
          return logger.error({ business: outcome.business, kind: outcome.failure.kind }, outcome.failure.message);
        }
        default: {
          const warning = warningOf(event);
          if (warning !== undefined) logger.warn({ business, stream: warning.stream }, warning.message);
        }
      }
    },
    recording: ({ ref, outcome }, totals) => {
      const reason = outcome.state === 'archived' ? {} : { reason: outcome.reason };
      const bytes = outcome.state === 'archived' ? { bytes: outcome.bytes } : {};
      logger.info({ business: ref.businessId, stream: ref.stream, id: ref.id, ...bytes, ...reason, totals }, `recording ${outcome.state}`);
    },
    stop: () => undefined,
  };
}
