/** Sources remembered at most; past it the oldest window is dropped (a flood of addresses must not grow memory). */
const MAX_SOURCES = 10_000;

function forget<K, V>(map: Map<K, V>): void {
  if (map.size < MAX_SOURCES) return;
  const oldest = map.keys().next();
  if (oldest.done !== true) map.delete(oldest.value);
}

/**
 * A fixed window per client address, in this process's memory: the receiver answers 429 before
 * it reads a body or checks a signature, so a flood costs a map lookup per request.
 */
export class ClientRateLimit {
  readonly #requests: number;
  readonly #perMs: number;
  readonly #windows = new Map<string, { startMs: number; count: number }>();

  constructor(requests: number, perMs: number) {
    this.#requests = requests;
    this.#perMs = perMs;
  }

  /** Counts one request from `source`; false when it is over the limit of its window. */
  take(source: string, nowMs: number): boolean {
    let window = this.#windows.get(source);
    if (window === undefined || nowMs - window.startMs >= this.#perMs) {
      this.#windows.delete(source);
      forget(this.#windows);
      window = { startMs: nowMs, count: 0 };
      this.#windows.set(source, window);
    }
    window.count += 1;
    return window.count <= this.#requests;
  }
}

/** Says yes at most once per interval per source, so refused deliveries cannot flood the log. */
export class LogThrottle {
  readonly #intervalMs: number;
  readonly #last = new Map<string, number>();

  constructor(intervalMs = 60_000) {
    this.#intervalMs = intervalMs;
  }

  /** True when `source` has not been logged within the interval (and records that it is now). */
  allow(source: string, nowMs: number): boolean {
    const last = this.#last.get(source);
    if (last !== undefined && nowMs - last < this.#intervalMs) return false;
    this.#last.delete(source);
    forget(this.#last);
    this.#last.set(source, nowMs);
    return true;
  }
}
