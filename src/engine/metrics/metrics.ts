import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { STREAM_STATES, type StreamGauges, type StreamState } from '../state/index.js';

/** Label values a caller gives; typed so a label cannot be misspelled or forgotten. */
interface BusinessLabels {
  readonly business: string;
}
interface StreamLabels extends BusinessLabels {
  readonly stream: string;
}

interface MetricsOptions {
  /**
   * Read at every scrape to set `callsync_lag_seconds` and `callsync_reconcile_difference` (e.g.
   * from the status store), so every replica reports the same fresh values even between runs.
   * Without it, callers set the lag gauge with {@link CallsyncMetrics.setLag}.
   */
  readonly statusSource?: () => Promise<readonly StreamGauges[]>;
  /** Also export Node's process metrics (`process_*`, `nodejs_*`). @defaultValue true */
  readonly processMetrics?: boolean;
  /**
   * How long one read of `statusSource` serves scrapes: a read walks every stream's status, so
   * more scrapers (or a shorter scrape interval) must not mean more reads. @defaultValue 15 000
   * (Prometheus's default scrape interval)
   */
  readonly statusCacheMs?: number;
  /** Clock for the cache. @defaultValue Date.now */
  readonly now?: () => number;
  /**
   * Export series per business (a `business` label, the lag and difference gauges per stream).
   * Off, the counters are summed over businesses (no `business` label) and the per-stream gauges
   * are left out, so a deployment of 10,000 businesses does not export hundreds of thousands of
   * series; `callsync_streams{state}` and `callsync_lag_max_seconds` are exported either way.
   * @defaultValue true
   */
  readonly perBusiness?: boolean;
}

/** How long one status read serves `/metrics` scrapes. */
const DEFAULT_STATUS_CACHE_MS = 15_000;

/** Buckets for whole sync jobs: a quiet incremental run takes ~1 s, a rate-limited backfill page walk many minutes. */
const JOB_DURATION_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** The metrics the worker updates. Each helper names its labels, so no caller can misspell one. */
export interface CallsyncMetrics {
  /** A registry of its own (never prom-client's global one), for `GET /metrics`. */
  readonly registry: Registry;
  /** `callsync_records_written_total{business,stream}` += count. */
  recordsWritten(labels: StreamLabels, count: number): void;
  /** `callsync_upstream_requests_total{business,status}` += 1; status is the HTTP status, or `error` when none came back. */
  upstreamRequest(labels: BusinessLabels, status: number | 'error'): void;
  /** `callsync_upstream_rate_limited_total{business}` += 1 (a 429 from upstream). */
  upstreamRateLimited(labels: BusinessLabels): void;
  /** `callsync_budget_wait_seconds_total{business}` += seconds spent waiting for the request budget. */
  budgetWaited(labels: BusinessLabels, seconds: number): void;
  /** `callsync_lag_seconds{business,stream}` = seconds (gauge); null removes the series. */
  setLag(labels: StreamLabels, seconds: number | null): void;
  /** `callsync_job_duration_seconds{stream}` observes one job's duration. */
  observeJobDuration(labels: { readonly stream: string }, seconds: number): void;
  /** `callsync_dead_letters_total{business,stream}` += count. */
  deadLettered(labels: StreamLabels, count: number): void;
  /**
   * `callsync_webhook_deliveries_total{business,outcome}` += 1. `business` only when the delivery
   * named a configured one (an attacker's names never become series); otherwise `-`.
   */
  webhookDelivery(business: string | undefined, outcome: string): void;
  /**
   * A sync run ended that a webhook or the schedule started: `callsync_sync_runs_total{trigger}`
   * += 1, `callsync_sync_records_written_total{trigger}` += written, and
   * `callsync_trigger_to_synced_seconds{trigger}` observes the time from the trigger (the first
   * delivery of a burst, or the schedule's firing) to the end of the run.
   */
  syncEnded(trigger: SyncTrigger, written: number, secondsSinceTrigger: number): void;
  /** `callsync_sink_notes_total{business,stream,code}` += count: what a sink noted (`SinkNote`), e.g. `party_by_direction`. */
  sinkNoted(labels: StreamLabels, code: string, count: number): void;
  /**
   * `callsync_records_rewritten_total{business,stream,reason}` += count: records changed on their
   * way to the sink, each also named in a warning (reason `invalid_utf8`: bytes that were not
   * UTF-8 stored as U+FFFD in `raw`; `merged_id`: records that differ sharing an id on one page).
   */
  recordsRewritten(labels: StreamLabels, reason: string, count: number): void;
}

/** Which path started a sync. */
type SyncTrigger = 'webhook' | 'schedule';

/** Buckets for trigger-to-synced: a webhook's sync lands in about a second, a schedule's reaches its interval. */
const TRIGGER_TO_SYNCED_BUCKETS = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900];

/** Builds a fresh registry with every callsync metric; call once per process (or per test). */
export function createMetrics(options: MetricsOptions = {}): CallsyncMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const perBusiness = options.perBusiness ?? true;
  // Off, the business label is dropped from every series (the counters sum over businesses).
  const withBusiness = (names: readonly string[]): string[] => (perBusiness ? ['business', ...names] : [...names]);
  // Labels are checked either way, so a caller's mistake shows whatever the setting.
  const byBusiness = (labels: BusinessLabels): Record<string, string> => {
    const checked = businessLabels(labels);
    return perBusiness ? checked : {};
  };
  const byStream = (labels: StreamLabels): Record<string, string> => {
    const checked = streamLabels(labels);
    return perBusiness ? checked : { stream: checked.stream };
  };
  // Every counter lives in this registry; per-business ones take their label names through `withBusiness`.
  const counter = (name: string, help: string, labelNames: readonly string[] = []): Counter => new Counter({ name, help, labelNames, registers });
  const records = counter('callsync_records_written_total', 'Records written to the sink.', withBusiness(['stream']));
  const requests = counter(
    'callsync_upstream_requests_total',
    'Requests sent to the upstream service, by response status (error: no response).',
    withBusiness(['status']),
  );
  const rateLimited = counter('callsync_upstream_rate_limited_total', 'Upstream responses with status 429.', withBusiness([]));
  const budgetWait = counter('callsync_budget_wait_seconds_total', 'Seconds spent waiting for the per-business request budget.', withBusiness([]));
  const statusSource = options.statusSource;
  // Every gauge below collects from one read per scrape: prom-client collects metrics side by side,
  // and the first collect starts the read the others share.
  // A successful read is kept for `statusCacheMs`; the lag is stored as the last success time, so
  // it is computed afresh from the cached reading (never older than the cache).
  let reading: Promise<readonly StreamGauges[] | undefined> | undefined;
  let cached: { readonly atMs: number; readonly readings: readonly StreamGauges[] } | undefined;
  const now = options.now ?? Date.now;
  const cacheMs = options.statusCacheMs ?? DEFAULT_STATUS_CACHE_MS;
  const readStatus = (source: () => Promise<readonly StreamGauges[]>): Promise<readonly StreamGauges[] | undefined> => {
    if (cached !== undefined && now() - cached.atMs < cacheMs) {
      const { atMs, readings } = cached;
      const agedS = (now() - atMs) / 1000;
      return Promise.resolve(readings.map((r) => (r.lagSeconds === null ? r : { ...r, lagSeconds: r.lagSeconds + agedS })));
    }
    reading ??= source()
      .then(
        (readings) => {
          cached = { atMs: now(), readings };
          return readings;
        },
        () => {
          lagSourceErrors.inc();
          return undefined;
        },
      )
      .finally(() => (reading = undefined));
    return reading;
  };
  /** A gauge refreshed from the status source at every scrape (kept as is when the read fails). */
  const statusGauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (gauge: Gauge<L>, readings: readonly StreamGauges[]) => void,
  ): Gauge<L> => {
    const gauge: Gauge<L> = new Gauge({
      name,
      help,
      labelNames,
      registers,
      ...(statusSource && {
        async collect(): Promise<void> {
          const readings = await readStatus(statusSource);
          if (readings === undefined) return;
          gauge.reset();
          fill(gauge, readings);
        },
      }),
    });
    return gauge;
  };
  const perStream =
    (pick: (reading: StreamGauges) => number | null | undefined) => (gauge: Gauge<'business' | 'stream'>, readings: readonly StreamGauges[]) => {
      for (const r of readings) {
        const value = pick(r);
        if (value !== undefined && value !== null) gauge.set({ business: r.business, stream: r.stream }, value);
      }
    };
  const lag = perBusiness
    ? statusGauge(
        'callsync_lag_seconds',
        'Seconds since the stream last synced successfully.',
        ['business', 'stream'],
        perStream((r) => r.lagSeconds),
      )
    : undefined;
  if (perBusiness) {
    statusGauge(
      'callsync_reconcile_difference',
      'Records upstream has minus records the sink accounts for, at the last reconciliation (0: exact).',
      ['business', 'stream'],
      perStream((r) => r.difference),
    );
  }
  statusGauge('callsync_streams', 'Streams (business × stream) in each state, from the status store.', ['state'], (gauge, readings) => {
    const counts = new Map<StreamState, number>(STREAM_STATES.map((state) => [state, 0]));
    for (const r of readings) if (r.state !== undefined) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
    for (const [state, count] of counts) gauge.set({ state }, count);
  });
  statusGauge('callsync_lag_max_seconds', 'The largest lag of any stream that has synced successfully (seconds).', [], (gauge, readings) => {
    const max = readings.reduce<number | null>((top, r) => (r.lagSeconds === null || (top !== null && top >= r.lagSeconds) ? top : r.lagSeconds), null);
    if (max !== null) gauge.set(max);
  });
  // Registered after the gauges so a scrape shows the error its own collection just counted.
  const lagSourceErrors = counter(
    'callsync_lag_source_errors_total',
    'Scrapes where the status source (the status store) could not be read; the gauges read from it kept their previous values.',
  );
  const jobDuration = new Histogram({
    name: 'callsync_job_duration_seconds',
    help: 'Duration of one sync job (one business and stream).',
    labelNames: ['stream'] as const,
    buckets: JOB_DURATION_BUCKETS,
    registers,
  });
  const deadLetters = counter('callsync_dead_letters_total', 'Records sent to the dead-letter table.', withBusiness(['stream']));
  const deliveries = counter(
    'callsync_webhook_deliveries_total',
    'Webhook deliveries received, by outcome (accepted, duplicate, unauthorized, replayed, wrong_business, unknown_business, too_large, rate_limited, busy, timeout, aborted, bad_request).',
    withBusiness(['outcome']),
  );
  const runs = counter('callsync_sync_runs_total', 'Sync runs that reached the end of their stream, by what started them.', ['trigger']);
  const runRecords = counter(
    'callsync_sync_records_written_total',
    'Records written by sync runs, by what started them (webhook or schedule): which path delivered the data.',
    ['trigger'],
  );
  const triggerToSynced = new Histogram({
    name: 'callsync_trigger_to_synced_seconds',
    help: 'Seconds from what started a sync (first webhook delivery of a burst, or the schedule firing) to the end of its run.',
    labelNames: ['trigger'],
    buckets: TRIGGER_TO_SYNCED_BUCKETS,
    registers,
  });
  const sinkNotes = counter(
    'callsync_sink_notes_total',
    'Records a sink stored with a note a person should see, by code (party_by_direction: a CRM chose the customer by the direction).',
    withBusiness(['stream', 'code']),
  );
  const rewrites = counter(
    'callsync_records_rewritten_total',
    'Records changed on their way to the sink, each named in a warning, by reason (invalid_utf8: stored with U+FFFD in raw; merged_id: records that differ shared an id on one page, one row kept).',
    withBusiness(['stream', 'reason']),
  );

  return {
    registry,
    recordsWritten: (labels, count) => records.inc(byStream(labels), count),
    upstreamRequest: (labels, status) => requests.inc({ ...byBusiness(labels), status: String(status) }),
    upstreamRateLimited: (labels) => rateLimited.inc(byBusiness(labels)),
    budgetWaited: (labels, seconds) => budgetWait.inc(byBusiness(labels), seconds),
    setLag: (labels, seconds) => {
      const checked = streamLabels(labels);
      if (lag === undefined) return;
      if (seconds === null) lag.remove(checked);
      else lag.set(checked, seconds);
    },
    observeJobDuration: ({ stream }, seconds) => jobDuration.observe({ stream: label('stream', stream) }, seconds),
    deadLettered: (labels, count) => deadLetters.inc(byStream(labels), count),
    webhookDelivery: (business, outcome) => deliveries.inc({ ...(perBusiness ? { business: business ?? '-' } : {}), outcome: label('outcome', outcome) }),
    syncEnded: (trigger, written, seconds) => {
      runs.inc({ trigger });
      if (written > 0) runRecords.inc({ trigger }, written);
      triggerToSynced.observe({ trigger }, Math.max(0, seconds));
    },
    sinkNoted: (labels, code, count) => sinkNotes.inc({ ...byStream(labels), code }, count),
    recordsRewritten: (labels, reason, count) => rewrites.inc({ ...byStream(labels), reason: label('reason', reason) }, count),
  };
}

/** Types stop TypeScript callers; this stops a missing or empty value from becoming a blank series at run time. */
function label(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`metric label ${name} must be a non-empty string`);
  return value;
}

function businessLabels(labels: BusinessLabels): { business: string } {
  return { business: label('business', labels.business) };
}

function streamLabels(labels: StreamLabels): { business: string; stream: string } {
  return { business: label('business', labels.business), stream: label('stream', labels.stream) };
}
