import type { BucketConfig } from '../../../source/ratelimit/index.js';

/** What a business is doing right now, as its bar says it. */
export type Phase =
  | { readonly kind: 'syncing' }
  | { readonly kind: 'waiting'; readonly untilMs: number }
  | { readonly kind: 'retrying'; readonly reason: string; readonly attempt: number; readonly maxAttempts: number }
  | { readonly kind: 'done' }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'stopped' };

/** The span the rate is measured over: long enough to smooth pages, short enough to show a stall. */
const RATE_WINDOW_MS = 30_000;

/** Progress of one business in a backfill, and the figures the bar shows; pure, clock injected. */
export class BusinessProgress {
  readonly business: string;
  records = 0;
  pages = 0;
  stream = '';
  phase: Phase = { kind: 'syncing' };
  #totals = new Map<string, number>();
  #recordsByStream = new Map<string, number>();
  // [time, records] of each stored page within the rate window.
  #samples: Array<[number, number]> = [];
  #startedMs: number | undefined;
  readonly #bucket: BucketConfig | undefined;
  readonly #pageSize: number;

  constructor(business: string, bucket: BucketConfig | undefined, pageSize: number) {
    this.business = business;
    this.#bucket = bucket;
    this.#pageSize = pageSize;
  }

  start(stream: string, atMs: number): void {
    this.stream = stream;
    this.#startedMs ??= atMs;
    this.phase = { kind: 'syncing' };
  }

  recordPage(stream: string, records: number, total: number | undefined, atMs: number): void {
    // A page is stored while the next request waits or retries (one page ahead): that phase stands.
    this.stream = stream;
    this.#startedMs ??= atMs;
    this.records += records;
    this.pages += 1;
    this.#recordsByStream.set(stream, (this.#recordsByStream.get(stream) ?? 0) + records);
    if (total !== undefined) this.#totals.set(stream, total);
    this.#samples.push([atMs, records]);
    this.#forget(atMs);
  }

  /** An answer came: whatever was waited for or retried is over. */
  answered(): void {
    if (this.phase.kind === 'waiting' || this.phase.kind === 'retrying') this.phase = { kind: 'syncing' };
  }

  /** The phase as of `nowMs`: a budget wait whose time has passed is syncing again. */
  phaseAt(nowMs: number): Phase {
    return this.phase.kind === 'waiting' && this.phase.untilMs <= nowMs ? { kind: 'syncing' } : this.phase;
  }

  /**
   * Records per second over the last {@link RATE_WINDOW_MS} (or since the start, when shorter):
   * a wait shows as a falling rate, not as a frozen one.
   */
  recordsPerSecond(nowMs: number): number {
    this.#forget(nowMs);
    if (this.#startedMs === undefined) return 0;
    const spanMs = Math.min(RATE_WINDOW_MS, nowMs - this.#startedMs);
    if (spanMs <= 0) return 0;
    const records = this.#samples.reduce((sum, [, count]) => sum + count, 0);
    return (records * 1000) / spanMs;
  }

  /** Records expected in all: upstream's totals where given, what was seen elsewhere. */
  expectedRecords(): number {
    let expected = 0;
    for (const [stream, seen] of this.#recordsByStream) expected += Math.max(seen, this.#totals.get(stream) ?? 0);
    return expected;
  }

  /**
   * Seconds left: the requests still needed for the reported totals, spent at the budget's pace
   * (or at the rate measured when the budget is off), plus what is left of a budget wait.
   * Undefined until there is a basis.
   */
  etaSeconds(nowMs: number): number | undefined {
    const remaining = this.expectedRecords() - this.records;
    if (remaining <= 0) return 0;
    const waiting = this.phase.kind === 'waiting' ? Math.max(0, this.phase.untilMs - nowMs) / 1000 : 0;
    if (this.#bucket !== undefined) {
      const requestsLeft = Math.ceil(remaining / this.#pageSize);
      return Math.ceil(waiting + (requestsLeft * this.#bucket.windowMs) / this.#bucket.limit / 1000);
    }
    const rate = this.recordsPerSecond(nowMs);
    return rate === 0 ? undefined : Math.ceil(waiting + remaining / rate);
  }

  #forget(nowMs: number): void {
    while ((this.#samples[0]?.[0] ?? nowMs) < nowMs - RATE_WINDOW_MS) this.#samples.shift();
  }
}
