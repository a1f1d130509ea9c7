import type { Logger } from 'pino';
import type { CallsyncMetrics } from '../metrics/index.js';
import type { StatusPatch, StatusStore } from '../state/index.js';
import type { PageProgress, SyncEvent } from '../sync/sync-event.js';
import { waitCappedMessage } from '../../source/upstream/index.js';

/** Longest a page's counters wait before they reach the status store. */
const COUNTER_FLUSH_MS = 500;
/** A run shorter than this never shows `syncing`: its one status write at the end says everything. */
const SYNCING_MARK_MS = 1_000;

interface JobReporterOptions {
  readonly business: string;
  readonly stream: string;
  readonly metrics: CallsyncMetrics;
  /** Where status goes: the store, or the job's batch in front of it (`status-batch.ts`). */
  readonly statusStore: Pick<StatusStore, 'write' | 'recordActivity'>;
  readonly logger: Logger;
}

/**
 * Turns one job's sync events into metrics and status updates. The events come synchronously,
 * so status writes are chained in order and awaited by `flush()`; a failed status write is
 * logged and never fails the sync (the data is already stored). An idle poll costs one write:
 * the `syncing` mark only for a run that lasts ({@link SYNCING_MARK_MS}), the page counters and
 * `lastRunAt` folded into the run's end, nothing read back.
 */
export class JobReporter {
  readonly #options: JobReporterOptions;
  readonly #labels: { readonly business: string; readonly stream: string };
  #chain: Promise<void> = Promise.resolve();
  #warning: string | undefined;
  #lastTotal: number | undefined;
  #pending = { pages: 0, recordsSynced: 0, deadLetters: 0 };
  #timer: NodeJS.Timeout | undefined;
  #syncingTimer: NodeJS.Timeout | undefined;
  /** When the run started, until a status write has said so. */
  #startedAt: number | undefined;

  constructor(options: JobReporterOptions) {
    this.#options = options;
    this.#labels = { business: options.business, stream: options.stream };
  }

  /** `total` of the last page that carried one: what upstream said it has when the run ended. */
  get lastTotal(): number | undefined {
    return this.#lastTotal;
  }

  /** The first warning of the run (e.g. a v2 gap), if any. */
  get warning(): string | undefined {
    return this.#warning;
  }

  /** The job's one event handler, for the engine and the upstream fetch alike. */
  readonly event = (event: SyncEvent): void => {
    const { metrics } = this.#options;
    const business = { business: this.#options.business };
    switch (event.type) {
      case 'page-stored':
        return this.#page(event.page);
      case 'warning':
        return this.#warn(event.message);
      case 'rewrite':
        return metrics.recordsRewritten(this.#labels, event.reason, event.count);
      case 'response':
        metrics.upstreamRequest(business, event.status ?? 'error');
        if (event.status === 429) metrics.upstreamRateLimited(business);
        return;
      case 'budget-wait':
        return metrics.budgetWaited(business, event.waitMs / 1000);
      case 'wait-capped':
        return this.#options.logger.warn({ ...this.#labels, source: event.source, askedMs: event.askedMs, waitMs: event.waitMs }, waitCappedMessage(event));
      default:
        // The job marks its own start and end (`started`, `status`): it runs one stream.
        return;
    }
  };

  #page(progress: PageProgress): void {
    const { metrics, statusStore } = this.#options;
    if (progress.total !== undefined) this.#lastTotal = progress.total;
    if (progress.written > 0) metrics.recordsWritten(this.#labels, progress.written);
    if (progress.deadLettered > 0) metrics.deadLettered(this.#labels, progress.deadLettered);
    for (const note of progress.notes ?? []) metrics.sinkNoted(this.#labels, note.code, note.count);
    this.#pending.pages += 1;
    this.#pending.recordsSynced += progress.written;
    this.#pending.deadLetters += progress.deadLettered;
    // Counters are summed over a short interval: one status write per page would cost more Redis
    // commands than the page itself, and a status read a moment late loses nothing.
    this.#timer ??= setTimeout(() => this.#flushCounters(statusStore), COUNTER_FLUSH_MS);
  }

  /** The run began at `atMs`: it shows as `syncing` only once it has lasted {@link SYNCING_MARK_MS}. */
  started(atMs: number, syncing: StatusPatch): void {
    this.#startedAt = atMs;
    this.#syncingTimer = setTimeout(() => {
      this.#syncingTimer = undefined;
      this.status(syncing);
    }, SYNCING_MARK_MS);
  }

  #flushCounters(statusStore: JobReporterOptions['statusStore'], patch: StatusPatch = {}): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const increment = this.#pending;
    const run = this.#startedAt === undefined ? {} : { lastRunAt: new Date(this.#startedAt).toISOString() };
    this.#startedAt = undefined;
    if (increment.pages === 0 && Object.keys(patch).length === 0) return;
    this.#pending = { pages: 0, recordsSynced: 0, deadLetters: 0 };
    const { business, stream } = this.#labels;
    this.#enqueue(async () => {
      await statusStore.write(business, stream, { ...run, ...patch, ...(increment.pages === 0 ? {} : { increment }) });
      if (increment.recordsSynced > 0) await statusStore.recordActivity(business, increment.recordsSynced, Date.now());
    });
  }

  #warn(message: string): void {
    this.#warning ??= message;
    this.#options.logger.warn({ ...this.#labels, warning: message }, 'stream warning');
    this.status({ warning: message });
  }

  /** Queues a status patch, with the counters gathered so far, after the patches before it. */
  status(patch: StatusPatch): void {
    if (patch.state !== undefined && patch.state !== 'syncing') {
      clearTimeout(this.#syncingTimer);
      this.#syncingTimer = undefined;
    }
    this.#flushCounters(this.#options.statusStore, patch);
  }

  /** Writes the counters gathered so far; resolves when every queued status write has been tried. */
  flush(): Promise<void> {
    clearTimeout(this.#syncingTimer);
    this.#syncingTimer = undefined;
    this.#flushCounters(this.#options.statusStore);
    return this.#chain;
  }

  #enqueue(write: () => Promise<void>): void {
    this.#chain = this.#chain.then(write).catch((error: unknown) => {
      this.#options.logger.warn({ ...this.#labels, err: error instanceof Error ? error.message : String(error) }, 'status update failed');
    });
  }
}
