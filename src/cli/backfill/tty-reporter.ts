import cliProgress from 'cli-progress';
import type { Logger } from 'pino';
import type { BusinessPlan } from '../../sync/business-plan.js';
import { BusinessProgress } from './business-progress.js';
import type { BackfillReporter } from './reporter.js';

const FORMAT =
  '{business} |{bar}| {value}/{total} records | {pages} pages | {rpm} req/min | {stream} | ETA {etaText}';

/** One live bar per business; warnings and failures still go to the log, above the bars. */
export function createTtyReporter(plans: readonly BusinessPlan[], pageSize: number, logger: Logger): BackfillReporter {
  const width = Math.max(...plans.map((plan) => plan.name.length));
  const bars = new cliProgress.MultiBar(
    { format: FORMAT, hideCursor: true, clearOnComplete: false, stopOnComplete: false, etaBuffer: 1, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  const entries = new Map(
    plans.map((plan) => {
      const progress = new BusinessProgress(plan.name, plan.bucket, pageSize);
      const bar = bars.create(1, 0, { business: plan.name.padEnd(width), pages: 0, rpm: 0, stream: '', etaText: '-' });
      return [plan.name, { progress, bar }] as const;
    }),
  );
  const refresh = (business: string): void => {
    const entry = entries.get(business);
    if (entry === undefined) return;
    const { progress, bar } = entry;
    const now = Date.now();
    const eta = progress.etaSeconds(now);
    bar.setTotal(Math.max(1, progress.expectedRecords()));
    bar.update(progress.records, {
      pages: progress.pages,
      rpm: progress.requestsPerMinute(now),
      stream: progress.stream,
      etaText: eta === undefined ? '-' : formatSeconds(eta),
    });
  };
  return {
    streamStarted: (business, stream) => {
      const entry = entries.get(business);
      if (entry !== undefined) entry.progress.stream = stream;
      refresh(business);
    },
    page: (page) => {
      entries.get(page.businessId)?.progress.recordPage(page.stream, page.records, page.total);
      refresh(page.businessId);
    },
    request: (business) => {
      entries.get(business)?.progress.recordRequest(Date.now());
      refresh(business);
    },
    waiting: () => undefined,
    warning: (business, stream, message) => bars.log(`${business}/${stream}: ${message}\n`),
    businessDone: (outcome) => {
      const entry = entries.get(outcome.business);
      if (entry !== undefined) entry.progress.stream = outcome.failure === undefined ? 'done' : 'FAILED';
      refresh(outcome.business);
      if (outcome.failure !== undefined) logger.error({ business: outcome.business }, outcome.failure.message);
    },
    stop: () => bars.stop(),
  };
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes}m${String(seconds % 60).padStart(2, '0')}s` : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
