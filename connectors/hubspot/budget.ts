import { abortableSleep, headerValue } from '../../src/http/index.js';
import type { Budget, ExchangeHead, HeaderBag } from '../../src/http/index.js';
import type { HubSpotLimits } from './config.js';

/** Time source of the limiters; injected so tests need no real waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  sleep: (ms: number) => abortableSleep(ms),
});

/**
 * A rolling-window budget (HubSpot counts its limits over rolling windows, not fixed ones):
 * at most `limit` grants in any `windowMs`. Grants are decided synchronously, so concurrent
 * callers in one process never overshoot.
 */
export class RollingWindow {
  #limit: number;
  #windowMs: number;
  readonly #clock: Clock;
  #stamps: number[] = [];
  #blockedUntil = 0;

  constructor(limit: number, windowMs: number, clock: Clock) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#clock = clock;
  }

  get limit(): number {
    return this.#limit;
  }

  get windowMs(): number {
    return this.#windowMs;
  }

  /** Grants now, or says how long until a grant is possible. */
  tryTake(): number {
    const now = this.#clock.now();
    if (now < this.#blockedUntil) return this.#blockedUntil - now;
    this.#prune(now);
    if (this.#stamps.length < this.#limit) {
      this.#stamps.push(now);
      return 0;
    }
    return Math.max(1, (this.#stamps[0] ?? now) + this.#windowMs - now);
  }

  /** Resolves once a grant was taken. */
  async take(): Promise<void> {
    for (let wait = this.tryTake(); wait > 0; wait = this.tryTake()) await this.#clock.sleep(wait);
  }

  /** Resolves once no 429 block is in force; takes no grant (for requests the window does not count). */
  async untilUnblocked(): Promise<void> {
    for (let wait = this.#blockedUntil - this.#clock.now(); wait > 0; wait = this.#blockedUntil - this.#clock.now()) await this.#clock.sleep(wait);
  }

  /** Adopts the server's limit and window, never above the configured ceiling given. */
  learn(limit: number, windowMs: number, ceiling: number): void {
    this.#limit = Math.max(1, Math.min(limit, ceiling));
    this.#windowMs = windowMs;
  }

  /**
   * The server saw fewer requests left than we count (other apps share the portal's budget):
   * count the difference as spent now, so we slow down with them.
   */
  observeRemaining(remaining: number): void {
    const now = this.#clock.now();
    this.#prune(now);
    const missing = this.#limit - this.#stamps.length - Math.max(0, remaining);
    for (let index = 0; index < missing; index += 1) this.#stamps.push(now);
  }

  /** No grants until `ms` from now (after a 429). */
  blockFor(ms: number): void {
    this.#blockedUntil = Math.max(this.#blockedUntil, this.#clock.now() + ms);
  }

  #prune(now: number): void {
    const from = now - this.#windowMs;
    let drop = 0;
    while (drop < this.#stamps.length && (this.#stamps[drop] ?? 0) <= from) drop += 1;
    if (drop > 0) this.#stamps = this.#stamps.slice(drop);
  }
}

/** How long a seen `Daily-Remaining: 0` stops requests locally before HubSpot is asked again. */
const DAILY_PAUSE_MS = 15 * 60_000;

/**
 * Added to each window: requests granted at exactly the limit's pace can reach HubSpot closer
 * together than they left (latency varies), and HubSpot counts arrivals.
 */
export const WINDOW_MARGIN_MS = { tenSecondly: 250, search: 100 } as const;

/**
 * Which of HubSpot's budgets a request draws on. `search` has its own per-second limit and, like
 * `associations` (v4 batch), is exempt from the 10-second window (`x-hubspot-rate-limit-exemptions:
 * ten-secondly` in HubSpot's reference); both still count against the daily quota.
 */
export type RequestKind = 'general' | 'search' | 'associations';

/**
 * The portal's request budget as this process sees it: the ten-secondly rolling limit, the
 * secondly limit when HubSpot advertises one, the search limit, and the daily quota. Starts
 * from the config and learns from every response's `X-HubSpot-RateLimit-*` headers; an
 * association answer that carries the 10-s window's headers without the exemption makes
 * associations count against that window from then on.
 */
export class HubSpotBudget {
  readonly #general: RollingWindow;
  readonly #search: RollingWindow;
  readonly #ceiling: number;
  readonly #clock: Clock;
  readonly #views: Readonly<Record<RequestKind, Budget>>;
  #secondly: RollingWindow | undefined;
  #dailyExhaustedUntil = 0;
  #associationsCounted = false;

  constructor(limits: HubSpotLimits, clock: Clock) {
    this.#clock = clock;
    this.#ceiling = limits.requestsPer10s;
    this.#general = new RollingWindow(limits.requestsPer10s, 10_000 + WINDOW_MARGIN_MS.tenSecondly, clock);
    this.#search = new RollingWindow(limits.searchPerSecond, 1000 + WINDOW_MARGIN_MS.search, clock);
    this.#views = { general: this.#view('general'), search: this.#view('search'), associations: this.#view('associations') };
  }

  /** The budget a request of this kind spends, as `send()` takes it: one per kind, made once. */
  for(kind: RequestKind): Budget {
    return this.#views[kind];
  }

  #view(kind: RequestKind): Budget {
    return {
      acquire: () => this.#take(kind),
      settle: (head: ExchangeHead | undefined) => {
        if (head !== undefined) this.observe(head.headers, kind);
      },
    };
  }

  /** True while the daily quota is known to be used up. */
  get dailyExhausted(): boolean {
    return this.#clock.now() < this.#dailyExhaustedUntil;
  }

  /** Whether requests of this kind are counted against the 10-s window. */
  countsTenSecondly(kind: RequestKind): boolean {
    return kind === 'general' || (kind === 'associations' && this.#associationsCounted);
  }

  /** Waits for a slot in every budget the request counts against. */
  async #take(kind: RequestKind): Promise<void> {
    if (kind === 'search') {
      await this.#search.take();
      return;
    }
    if (this.countsTenSecondly(kind)) {
      await this.#general.take();
      await this.#secondly?.take();
      return;
    }
    // Exempt, yet a 429 of the portal's window still holds every request back.
    await this.#general.untilUnblocked();
  }

  /** Corrects the local view from a response's headers. */
  observe(headers: HeaderBag, kind: RequestKind = 'general'): void {
    const number = (name: string): number | undefined => {
      const value = headerValue(headers, `x-hubspot-ratelimit-${name}`);
      const parsed = Number(value);
      return value === undefined || value === '' || !Number.isFinite(parsed) ? undefined : parsed;
    };
    const exempt = /ten-secondly/i.test(headerValue(headers, 'x-hubspot-rate-limit-exemptions') ?? '');
    const remaining = number('remaining');
    if (kind === 'associations' && !exempt && remaining !== undefined) this.#associationsCounted = true;
    const max = number('max');
    const interval = number('interval-milliseconds');
    if (max !== undefined && max > 0) this.#general.learn(max, (interval ?? 10_000) + WINDOW_MARGIN_MS.tenSecondly, this.#ceiling);
    if (remaining !== undefined) this.#general.observeRemaining(remaining);

    const secondly = number('secondly');
    if (secondly !== undefined && secondly > 0) {
      this.#secondly ??= new RollingWindow(secondly, 1000, this.#clock);
      this.#secondly.learn(secondly, 1000, secondly);
    }
    const secondlyRemaining = number('secondly-remaining');
    if (secondlyRemaining !== undefined) this.#secondly?.observeRemaining(secondlyRemaining);

    if (number('daily-remaining') === 0) this.markDailyExhausted();
  }

  /** After a 429 of a rolling policy: nothing goes out of this bucket for `ms`. */
  block(kind: RequestKind, ms: number): void {
    (kind === 'search' ? this.#search : this.#general).blockFor(ms);
  }

  markDailyExhausted(): void {
    this.#dailyExhaustedUntil = this.#clock.now() + DAILY_PAUSE_MS;
  }
}
