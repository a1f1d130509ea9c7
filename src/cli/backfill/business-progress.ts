import type { BucketConfig } from '../../ratelimit/index.js';

/** Progress of one business in a backfill, and the figures the bar shows; pure, clock injected. */
export class BusinessProgress {
  readonly business: string;
  records = 0;
  pages = 0;
  requests = 0;
  stream = '';
  #totals = new Map<string, number>();
  #recordsByStream = new Map<string, number>();
  #requestTimes: number[] = [];
  readonly #bucket: BucketConfig | undefined;
  readonly #pageSize: number;

  constructor(business: string, bucket: BucketConfig | undefined, pageSize: number) {
    this.business = business;
    this.#bucket = bucket;
    this.#pageSize = pageSize;
  }

  recordPage(stream: string, records: number, total: number | undefined): void {
    this.stream = stream;
    this.records += records;
    this.pages += 1;
    this.#recordsByStream.set(stream, (this.#recordsByStream.get(stream) ?? 0) + records);
    if (total !== undefined) this.#totals.set(stream, total);
  }

  recordRequest(atMs: number): void {
    this.requests += 1;
    this.#requestTimes.push(atMs);
    while ((this.#requestTimes[0] ?? atMs) < atMs - 60_000) this.#requestTimes.shift();
  }

  /** Requests in the last minute. */
  requestsPerMinute(nowMs: number): number {
    return this.#requestTimes.filter((at) => at >= nowMs - 60_000).length;
  }

  /** Records expected in all: upstream's totals where given, what was seen elsewhere. */
  expectedRecords(): number {
    let expected = 0;
    for (const [stream, seen] of this.#recordsByStream) expected += Math.max(seen, this.#totals.get(stream) ?? 0);
    return expected;
  }

  /**
   * Seconds left: the requests still needed for the reported totals, spent at the budget's pace
   * (or at the pace seen so far when the budget is off). Undefined until there is a basis.
   */
  etaSeconds(nowMs: number): number | undefined {
    const remaining = this.expectedRecords() - this.records;
    if (remaining <= 0) return 0;
    const requestsLeft = Math.ceil(remaining / this.#pageSize);
    if (this.#bucket !== undefined) return Math.ceil((requestsLeft * this.#bucket.windowMs) / this.#bucket.limit / 1000);
    const perMinute = this.requestsPerMinute(nowMs);
    return perMinute === 0 ? undefined : Math.ceil((requestsLeft / perMinute) * 60);
  }
}
