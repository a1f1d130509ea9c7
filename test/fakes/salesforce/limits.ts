/**
 * The org's API request allocation ("API Request Limits and Allocations"): every REST API request
 * counts one, a composite request counts one whatever it holds, token requests count none. The
 * allocation is over a rolling 24 hours; the fake's window is configurable so a test can wait it
 * out. Every answer carries `Sforce-Limit-Info: api-usage=N/M` ("Limit Info Header"); past the
 * allocation requests are refused with `403 REQUEST_LIMIT_EXCEEDED` ("TotalRequests Limit
 * exceeded."), and refused requests do not count.
 */
export class FakeAllocation {
  readonly #used: number[] = [];
  /** Requests refused for the allocation. */
  refused = 0;

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Counts one request; false when the allocation is used up. */
  take(now: number): boolean {
    this.#expire(now);
    if (this.#used.length >= this.max) {
      this.refused += 1;
      return false;
    }
    this.#used.push(now);
    return true;
  }

  usage(now: number): number {
    this.#expire(now);
    return this.#used.length;
  }

  header(now: number): string {
    return `api-usage=${this.usage(now)}/${this.max}`;
  }

  #expire(now: number): void {
    while (this.#used.length > 0 && (this.#used[0] ?? 0) <= now - this.windowMs) this.#used.shift();
  }
}
