import cliProgress from 'cli-progress';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import type { BusinessOutcome } from '../../../engine/sync/sync-event.js';
import { BusinessProgress, type Phase } from './business-progress.js';
import type { BackfillReporter } from './reporter.js';
import { totalsText } from '../recordings/archive-run.js';

const FORMAT = '{business} |{bar}| {value}/{total} records | {rate} rec/s | ETA {etaText} | {status}';

interface TtyReporterOptions {
  readonly plans: readonly BusinessPlan[];
  readonly pageSize: number;
  /** `upstream.retry.maxAttempts`, the m of "retrying n/m". */
  readonly maxAttempts: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

/**
 * One live bar per business saying what it does (syncing, waiting for budget until a time,
 * retrying, done, failed). Nothing else writes to the terminal while the bars are up: log lines
 * are held (see {@link createHeldLines}) and printed below the bars when they stop.
 */
export function createTtyReporter(options: TtyReporterOptions): BackfillReporter {
  const now = options.now ?? Date.now;
  const width = Math.max(...options.plans.map((plan) => plan.name.length));
  const bars = new cliProgress.MultiBar(
    { format: FORMAT, hideCursor: true, clearOnComplete: false, stopOnComplete: false, fps: 5 },
    cliProgress.Presets.shades_classic,
  );
  const entries = new Map(
    options.plans.map((plan) => {
      const progress = new BusinessProgress(plan.name, plan.bucket, options.pageSize);
      const bar = bars.create(1, 0, { business: plan.name.padEnd(width), rate: '0', etaText: '-', status: 'starting' });
      return [plan.name, { progress, bar }] as const;
    }),
  );
  // `--recordings`: one more line, below the businesses', once the first recording is done.
  let recordings: cliProgress.SingleBar | undefined;
  const drawnStatus = new Map<string, string>();
  const refresh = (business: string): void => {
    const entry = entries.get(business);
    if (entry === undefined) return;
    const { progress, bar } = entry;
    const at = now();
    const eta = progress.etaSeconds(at);
    const status = phaseText(progress.phaseAt(at), progress.stream);
    bar.setTotal(Math.max(1, progress.expectedRecords()));
    bar.update(progress.records, {
      rate: progress.recordsPerSecond(at).toFixed(progress.recordsPerSecond(at) < 10 ? 1 : 0),
      etaText: eta === undefined ? '-' : formatSeconds(eta),
      status,
    });
    // The bars redraw on a timer; a phase shorter than its period (syncing one page between two
    // budget waits) would never be seen, so a new phase is drawn at once.
    if (drawnStatus.get(business) !== status) {
      drawnStatus.set(business, status);
      bars.update();
    }
  };
  // The rate and the wait's countdown move between events too.
  const ticker = setInterval(() => {
    for (const business of entries.keys()) refresh(business);
  }, 1_000);
  ticker.unref();
  const set = (business: string, change: (progress: BusinessProgress) => void): void => {
    const entry = entries.get(business);
    if (entry !== undefined) change(entry.progress);
    refresh(business);
  };
  return {
    event: (business, event) => {
      switch (event.type) {
        case 'stream-start':
          return set(business, (p) => p.start(event.stream, now()));
        case 'page-stored':
          return set(business, (p) => p.recordPage(event.page.stream, event.page.records, event.page.total, now()));
        case 'response':
          if (event.status !== undefined && event.status < 300) set(business, (p) => p.answered());
          return;
        case 'budget-wait':
          return set(business, (p) => (p.phase = { kind: 'waiting', untilMs: now() + event.waitMs }));
        case 'retry':
          return set(business, (p) => (p.phase = { kind: 'retrying', reason: event.reason, attempt: event.attempt, maxAttempts: options.maxAttempts }));
        case 'business-end':
          return set(business, (p) => (p.phase = endPhase(event.outcome)));
        default:
          // Warnings are logged, and the logs are printed below the bars when they stop.
          return;
      }
    },
    recording: (_progress, totals) => {
      const text = totalsText(totals);
      recordings ??= bars.create(1, 0, { text }, { format: `${'recordings'.padEnd(width)} | {text}` });
      recordings.update(0, { text });
    },
    stop: () => {
      clearInterval(ticker);
      for (const business of entries.keys()) refresh(business);
      bars.stop();
    },
  };
}

/** A business's last phase: failed if any stream failed, else stopped if any was stopped, else done. */
function endPhase(outcome: BusinessOutcome): Phase {
  const failure = outcome.failure ?? outcome.streams.find((s) => s.failure !== undefined)?.failure;
  if (failure !== undefined) return { kind: 'failed', reason: failure.kind };
  return outcome.streams.some((s) => s.result?.stopped === true) ? { kind: 'stopped' } : { kind: 'done' };
}

/** The bar's last column. */
function phaseText(phase: Phase, stream: string): string {
  switch (phase.kind) {
    case 'syncing':
      return `syncing ${stream}`;
    case 'waiting':
      return `waiting for budget until ${new Date(phase.untilMs).toTimeString().slice(0, 8)}`;
    case 'retrying':
      return `retrying (${phase.reason}) ${phase.attempt}/${phase.maxAttempts}`;
    case 'failed':
      return `failed (${phase.reason})`;
    case 'stopped':
      return 'stopped';
    case 'done':
      return 'done';
  }
}

/**
 * A log destination that holds lines while the bars are drawn (a line written between redraws
 * would be drawn over) and hands them to `flush` afterwards, below the bars. Keeps the last `max`.
 */
export function createHeldLines(max = 500): { write(line: string): void; flush(write: (text: string) => void): void } {
  const held: string[] = [];
  let dropped = 0;
  return {
    write(line) {
      held.push(line);
      if (held.length > max) {
        held.shift();
        dropped += 1;
      }
    },
    flush(write) {
      if (dropped > 0) write(`(${dropped} earlier log lines not shown)\n`);
      for (const line of held.splice(0)) write(line.endsWith('\n') ? line : `${line}\n`);
      dropped = 0;
    },
  };
}

function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60 ? `${minutes}m${String(seconds % 60).padStart(2, '0')}s` : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
