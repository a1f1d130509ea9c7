import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Label values a caller gives; typed so a label cannot be misspelled or forgotten. */
export interface BusinessLabels {
  readonly business: string;
}
export interface StreamLabels extends BusinessLabels {
  readonly stream: string;
}

/** One stream's readings for {@link MetricsOptions.statusSource}. */
export interface StreamReading extends StreamLabels {
  readonly lagSeconds: number | null;
  /** Upstream minus stored at the last reconciliation; null when never checked or not verifiable. */
  readonly difference?: number | null;
}

export interface MetricsOptions {
  /**
   * Read at every scrape to set `callsync_lag_seconds` and `callsync_reconcile_difference` (e.g.
   * from the status store), so every replica reports the same fresh values even between runs.
   * Without it, callers set the lag gauge with {@link CallsyncMetrics.setLag}.
   */
  readonly statusSource?: () => Promise<readonly StreamReading[]>;
  /** Also export Node's process metrics (`process_*`, `nodejs_*`). @defaultValue true */
  readonly processMetrics?: boolean;
}

/** Buckets for whole sync jobs: a quiet incremental run takes ~1 s, a rate-limited backfill page walk many minutes. */
export const JOB_DURATION_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

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
}

/** Builds a fresh registry with every callsync metric; call once per process (or per test). */
export function createMetrics(options: MetricsOptions = {}): CallsyncMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const records = new Counter({
    name: 'callsync_records_written_total',
    help: 'Records written to the sink.',
    labelNames: ['business', 'stream'] as const,
    registers,
  });
  const requests = new Counter({
    name: 'callsync_upstream_requests_total',
    help: 'Requests sent to the upstream service, by response status (error: no response).',
    labelNames: ['business', 'status'] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: 'callsync_upstream_rate_limited_total',
    help: 'Upstream responses with status 429.',
    labelNames: ['business'] as const,
    registers,
  });
  const budgetWait = new Counter({
    name: 'callsync_budget_wait_seconds_total',
    help: 'Seconds spent waiting for the per-business request budget.',
    labelNames: ['business'] as const,
    registers,
  });
  const statusSource = options.statusSource;
  // Both gauges collect from one read per scrape: prom-client collects metrics side by side, and
  // the first collect starts the read the second one shares.
  let reading: Promise<readonly StreamReading[] | undefined> | undefined;
  const readStatus = (source: () => Promise<readonly StreamReading[]>): Promise<readonly StreamReading[] | undefined> => {
    reading ??= source()
      .catch(() => {
        lagSourceErrors.inc();
        return undefined;
      })
      .finally(() => (reading = undefined));
    return reading;
  };
  /** A business × stream gauge refreshed from the status source at every scrape (kept as is when it fails). */
  const statusGauge = (name: string, help: string, pick: (reading: StreamReading) => number | null | undefined): Gauge<'business' | 'stream'> => {
    const gauge: Gauge<'business' | 'stream'> = new Gauge({
      name,
      help,
      labelNames: ['business', 'stream'] as const,
      registers,
      ...(statusSource && {
        async collect(): Promise<void> {
          const readings = await readStatus(statusSource);
          if (readings === undefined) return;
          gauge.reset();
          for (const r of readings) {
            const value = pick(r);
            if (value !== undefined && value !== null) gauge.set({ business: r.business, stream: r.stream }, value);
          }
        },
      }),
    });
    return gauge;
  };
  const lag = statusGauge('callsync_lag_seconds', 'Seconds since the stream last synced successfully.', (r) => r.lagSeconds);
  statusGauge(
    'callsync_reconcile_difference',
    'Records upstream has minus records the sink accounts for, at the last reconciliation (0: exact).',
    (r) => r.difference,
  );
  // Registered after the gauge so a scrape shows the error its own lag collection just counted.
  const lagSourceErrors = new Counter({
    name: 'callsync_lag_source_errors_total',
    help: 'Scrapes where the status source (the status store) could not be read; the lag and difference gauges kept their previous values.',
    registers,
  });
  const jobDuration = new Histogram({
    name: 'callsync_job_duration_seconds',
    help: 'Duration of one sync job (one business and stream).',
    labelNames: ['stream'] as const,
    buckets: JOB_DURATION_BUCKETS,
    registers,
  });
  const deadLetters = new Counter({
    name: 'callsync_dead_letters_total',
    help: 'Records sent to the dead-letter table.',
    labelNames: ['business', 'stream'] as const,
    registers,
  });

  return {
    registry,
    recordsWritten: (labels, count) => records.inc(streamLabels(labels), count),
    upstreamRequest: (labels, status) => requests.inc({ ...businessLabels(labels), status: String(status) }),
    upstreamRateLimited: (labels) => rateLimited.inc(businessLabels(labels)),
    budgetWaited: (labels, seconds) => budgetWait.inc(businessLabels(labels), seconds),
    setLag: (labels, seconds) => {
      if (seconds === null) lag.remove(streamLabels(labels));
      else lag.set(streamLabels(labels), seconds);
    },
    observeJobDuration: ({ stream }, seconds) => jobDuration.observe({ stream: label('stream', stream) }, seconds),
    deadLettered: (labels, count) => deadLetters.inc(streamLabels(labels), count),
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
