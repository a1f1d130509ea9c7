import { ClientShares } from '../server/connection-limits.js';

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

/** Bytes of bodies one delivery keeps while it is read; given back with `release`. */
interface BudgetHold {
  /** Makes the hold `bytes` large (never smaller); false when the budget cannot take it (the hold stays as it was). */
  grow(bytes: number): boolean;
  release(): void;
}

/**
 * Bytes of webhook bodies kept in memory at once, by every connection together: a body needed
 * after its signature (for a payload field) holds its declared length, or what has arrived,
 * until it is handled. One client address may hold a quarter of the budget (never less than one
 * body), so stalled bodies from one address cannot leave the others a 503.
 */
export class ByteBudget {
  readonly #shares: ClientShares;

  constructor(capacity: number, maxBodyBytes: number) {
    this.#shares = new ClientShares(Math.max(capacity, maxBodyBytes), Math.max(Math.floor(capacity / 4), maxBodyBytes));
  }

  /** An empty hold for `source`. */
  hold(source: string): BudgetHold {
    let held = 0;
    return {
      grow: (bytes) => {
        const delta = bytes - held;
        if (delta <= 0) return true;
        if (!this.#shares.tryAdd(source, delta)) return false;
        held = bytes;
        return true;
      },
      release: () => {
        this.#shares.remove(source, held);
        held = 0;
      },
    };
  }

  /** Bytes held now, by every delivery together. */
  get used(): number {
    return this.#shares.used;
  }
}

/**
 * Counts an event and says so in one log line per interval: the first at once, then one line with
 * the count at the end of each interval in which more arrived. A flood costs one line a minute.
 */
export class CountedLine {
  readonly #say: (count: number) => void;
  readonly #intervalMs: number;
  #count = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(say: (count: number) => void, intervalMs = 60_000) {
    this.#say = say;
    this.#intervalMs = intervalMs;
  }

  add(): void {
    this.#count += 1;
    if (this.#timer === undefined) this.#flush();
  }

  #flush(): void {
    const count = this.#count;
    this.#count = 0;
    this.#timer = undefined;
    if (count === 0) return;
    this.#say(count);
    this.#timer = setTimeout(() => this.#flush(), this.#intervalMs);
    this.#timer.unref();
  }
}
