import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { Archiver, openRecordingArchive, recordingSources, type ArchiveProgress } from '../../../../connectors/recordings/index.js';
import type { CallsyncConfig } from '../../../config/index.js';
import type { Sink } from '../../../sink/sink.js';
import type { BusinessPlan } from '../../../engine/sync/business-plan.js';
import { abortableSleep } from '../../../http/index.js';
import { archiveBudget } from './archive-budget.js';
import { resendArchived, type ResendResult, type StreamExclusive } from './resend-archived.js';
import type { RateLimiter } from '../../../source/ratelimit/index.js';
import { createUpstreamAgent } from '../../../source/upstream/index.js';
import { createRedactor } from '../../../base/redact/index.js';
import { EXIT, OperatorError } from '../failure/exit-codes.js';
import { planTables } from '../failure/preflight.js';

type RecordingsSection = NonNullable<CallsyncConfig['recordings']>;

/** Which records `ArchiveRun.resend` writes again, and how it keeps other writers out. */
interface ResendScope {
  /** @defaultValue every planned business */
  readonly business?: string;
  /** @defaultValue every stream with recordings */
  readonly stream?: string;
  /** @defaultValue none: the caller holds the streams' leases (a backfill, a sync job) */
  readonly exclusive?: StreamExclusive;
}

/** Recordings done so far in one run, for the person watching. */
export interface RecordingTotals {
  archived: number;
  expired: number;
  failed: number;
  /** Bytes archived. */
  bytes: number;
}

/** An archive pass alongside a sync: `poke` after each stored page, `finish` at the end. */
export interface ArchiveRun {
  poke(businessId: string): void;
  /** One pass for the business, awaited; rejects with its own failure only (`run`'s queue: one job, one pass). */
  pass(businessId: string): Promise<void>;
  /**
   * Writes again, to a sink that sends archived links, the stored records whose archived link no
   * write has carried yet (resend-archived.ts), of every planned business and stream or of those
   * `scope` names; with `scope.exclusive`, each stream only while its lease is free. Nothing for
   * any other sink.
   */
  resend(scope?: ResendScope): Promise<ResendResult>;
  /** Archives what is left of every business and waits, then resends (`resend`); rethrows a storage failure. */
  finish(): Promise<void>;
  readonly totals: Readonly<RecordingTotals>;
  close(): Promise<void>;
}

interface ArchiveRunOptions {
  readonly config: CallsyncConfig<{ readonly type: string; readonly [key: string]: unknown }>;
  /** The config file, named in a setup error. */
  readonly file: string;
  readonly plans: readonly BusinessPlan[];
  /** The run's budget: the recordings host's buckets, and each business's when downloads count against the API. */
  readonly limiter: RateLimiter;
  readonly logger: Logger;
  readonly secrets: readonly string[];
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?: ((progress: ArchiveProgress, totals: Readonly<RecordingTotals>) => void) | undefined;
  /** @defaultValue one keep-alive agent for the archive */
  readonly dispatcher?: Dispatcher;
  /**
   * The sink the sync writes. When its target sends archived links, `resend` and `finish` write
   * the calls archived and not yet sent again, so the CRM gets the archived link (resend-archived.ts). @defaultValue none
   */
  readonly sink?: Sink;
}

/** The `recordings:` section, or the operator's two lines when a command needs it and the file has none. */
export function recordingsSection(config: { readonly recordings?: RecordingsSection | undefined }, file: string): RecordingsSection {
  if (config.recordings !== undefined) return config.recordings;
  throw new OperatorError(
    `${file} has no recordings: section\nfix: add recordings: { archive: { type: folder, path: ./data/recordings } } (docs/recordings.md)`,
    EXIT.config,
  );
}

/** Runs `open`; a sink that cannot hold the archive's state is said as a config error naming the file. */
export async function setupFailureSaid<T>(file: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if ((error as { code?: unknown }).code === 'RECORDINGS_SETUP')
      throw new OperatorError(`${file}: ${(error as Error).message}`, EXIT.config, { cause: error });
    throw error;
  }
}

/**
 * Opens the archive beside the sink and an archiver whose downloads wait on the run's limiter: a
 * bucket per recordings host (`recordings.budget.requestsPerMinute`) and, unless
 * `countAgainstApi` is false, the business's own, so archiving can never cause a 429 on the API.
 */
export async function startArchiveRun(options: ArchiveRunOptions): Promise<ArchiveRun> {
  const { config, limiter, plans } = options;
  const recordings = recordingsSection(config, options.file);
  const archive = await setupFailureSaid(options.file, () => openRecordingArchive(recordings, config.sink, options.logger));
  const dispatcher = options.dispatcher ?? createUpstreamAgent({ timeoutMs: recordings.timeoutMs, caFile: config.upstream.caFile });
  const byName = new Map(plans.map((plan) => [plan.name, plan]));
  const apiOrigin = new URL(config.upstream.baseUrl).origin;
  const totals: RecordingTotals = { archived: 0, expired: 0, failed: 0, bytes: 0 };
  const sources = recordingSources(planTables([...plans]));
  const resend = async (scope: ResendScope = {}): Promise<ResendResult> => {
    if (options.sink === undefined) return { sent: 0, busy: [] };
    const { business, stream, exclusive } = scope;
    const result = await resendArchived({
      sink: options.sink,
      state: archive.state,
      sources: stream === undefined ? sources : sources.filter((source) => source.stream === stream),
      plans: business === undefined ? plans : plans.filter((plan) => plan.name === business),
      ...(exclusive === undefined ? {} : { exclusive }),
    });
    if (result.sent > 0) options.logger.info({ resent: result.sent }, 'calls written again with their archived recording links');
    return result;
  };
  const archiver = new Archiver({
    state: archive.state,
    sources,
    download: {
      dispatcher,
      store: archive.store,
      maxBytes: recordings.maxBytes,
      allowHosts: recordings.allowHosts,
      timeoutMs: recordings.timeoutMs,
      retry: recordings.retry,
      maxWaitMs: config.upstream.maxWaitMs,
      signal: options.signal,
      redact: createRedactor(options.secrets),
    },
    acquire: archiveBudget({
      limiter,
      plans,
      budget: recordings.budget,
      wait: (ms) => abortableSleep(ms, options.signal),
      maxWaitMs: config.upstream.maxWaitMs,
    }),
    // The API key goes only to links on the API's own origin, and never on a redirect (the downloader's rule).
    credentials: (businessId) => {
      const apiKey = recordings.sendApiKey ? byName.get(businessId)?.credentials.apiKey : undefined;
      return apiKey === undefined ? undefined : { origin: apiOrigin, headers: { authorization: `Bearer ${apiKey}` } };
    },
    concurrency: recordings.concurrency,
    deleteWithRecord: recordings.deleteWithRecord,
    onRemoved: (ref) => options.logger.info({ businessId: ref.businessId, stream: ref.stream, id: ref.id }, 'recording removed with its record'),
    onProgress: (progress) => {
      const { outcome } = progress;
      totals[outcome.state] += 1;
      if (outcome.state === 'archived') totals.bytes += outcome.bytes;
      options.onProgress?.(progress, totals);
    },
  });
  return {
    poke: (businessId) => archiver.poke(businessId),
    pass: (businessId) => archiver.pass(businessId),
    resend,
    // Stopped by a signal: only the passes in flight are awaited, and their abort is no failure.
    finish: async () => {
      const stopped = options.signal?.aborted === true;
      await archiver.finish(stopped ? [] : plans.map((plan) => plan.name)).catch((error: unknown) => {
        if (options.signal?.aborted !== true) throw error;
      });
      // Every page is written by now, so the positions loaded for the rewrite are the last ones.
      if (options.signal?.aborted !== true) await resend();
    },
    totals,
    close: async () => {
      if (options.dispatcher === undefined) await dispatcher.close();
      await archive.close();
    },
  };
}

/** `12 archived (3.4 MB), 1 expired, 0 failed` */
export function totalsText(totals: Readonly<RecordingTotals>): string {
  return `${totals.archived} archived (${bytesText(totals.bytes)}), ${totals.expired} expired, ${totals.failed} failed`;
}

/** Bytes in the largest unit under 1024 of it, one decimal. */
export function bytesText(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}
