import type { Logger } from 'pino';
import type { BackfillReporter } from './reporter.js';

/** Plain structured lines for logs and pipes, one per page and per notable event. */
export function createLogReporter(logger: Logger): BackfillReporter {
  return {
    streamStarted: (business, stream) => logger.info({ business, stream }, 'stream started'),
    page: (progress) => logger.info({ ...progress }, 'page stored'),
    request: () => undefined,
    waiting: (business, waitMs, reason) => logger.info({ business, waitMs, reason }, 'waiting'),
    warning: (business, stream, message) => logger.warn({ business, stream }, message),
    businessDone: (outcome) => {
      if (outcome.failure === undefined) logger.info({ business: outcome.business }, 'business done');
      else logger.error({ business: outcome.business, kind: outcome.failure.kind }, outcome.failure.message);
    },
    stop: () => undefined,
  };
}
