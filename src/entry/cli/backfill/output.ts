import type { LevelWithSilent, Logger } from 'pino';
import type { CallsyncConfig } from '../../../config/index.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import { createLogger } from '../common/logger.js';
import { createLogReporter } from './log-reporter.js';
import type { BackfillReporter } from './reporter.js';
import { createHeldLines, createTtyReporter } from './tty-reporter.js';

interface BackfillOutput {
  readonly logger: Logger;
  readonly reporter: BackfillReporter;
  /** After the reporter stopped: log lines held back while the bars were drawn, below them. */
  readonly flushLogs: () => void;
}

/** Bars on a terminal (logs held until they stop, so no line lands over them), JSON lines elsewhere. */
export function backfillOutput(options: {
  readonly plans: readonly BusinessPlan[];
  readonly config: CallsyncConfig<unknown>;
  readonly bars: boolean;
  readonly level: LevelWithSilent;
  readonly secrets?: readonly string[];
}): BackfillOutput {
  if (!options.bars) {
    const logger = createLogger({ level: options.level, secrets: options.secrets });
    return { logger, reporter: createLogReporter(logger), flushLogs: () => undefined };
  }
  const held = createHeldLines();
  const logger = createLogger({ level: options.level, secrets: options.secrets, destination: held });
  const { upstream } = options.config;
  const reporter = createTtyReporter({ plans: options.plans, pageSize: upstream.pageSize, maxAttempts: upstream.retry.maxAttempts });
  return { logger, reporter, flushLogs: () => held.flush((text) => process.stderr.write(text)) };
}
