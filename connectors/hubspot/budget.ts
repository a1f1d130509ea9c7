import type { HubSpotLimits } from './config.js';
import { RollingWindow, type Clock } from './rolling-window.js';

/** How long a seen `Daily-Remaining: 0` stops requests locally before HubSpot is asked again. */
export const DAILY_PAUSE_MS = 15 * 60_000;

/**
 * The portal's request budget as this process sees it: the ten-secondly rolling limit, the
 * secondly limit when HubSpot advertises one, the search limit, and the daily quota. Starts
 * from the config and learns from every response's `X-HubSpot-RateLimit-*` headers.
 */
export class HubSpotBudget {
  readonly #general: RollingWindow;
  readonly #search: RollingWindow;
  readonly #ceiling: number;
  readonly #clock: Clock;
  #secondly: RollingWindow | undefined;
  #dailyExhaustedUntil = 0;

  constructor(limits: HubSpotLimits, clock: Clock) {
    this.#clock = clock;
    this.#ceiling = limits.requestsPer10s;
    this.#general = new RollingWindow(limits.requestsPer10s, 10_000, clock);
    this.#search = new RollingWindow(limits.searchPerSecond, 1000, clock);
  }

  /** True while the daily quota is known to be used up. */
  get dailyExhausted(): boolean {
    return this.#clock.now() < this.#dailyExhaustedUntil;
  }

  /** Waits for a slot in every budget the request counts against. */
  async take(kind: 'general' | 'search'): Promise<void> {
    if (kind === 'search') await this.#search.take();
    await this.#general.take();
    await this.#secondly?.take();
  }

  /** Corrects the local view from a response's headers (lower-case names). */
  observe(headers: Readonly<Record<string, string | undefined>>): void {
    const number = (name: string): number | undefined => {
      const value = headers[`x-hubspot-ratelimit-${name}`];
      const parsed = Number(value);
      return value === undefined || value === '' || !Number.isFinite(parsed) ? undefined : parsed;
    };
    const max = number('max');
    const interval = number('interval-milliseconds');
    if (max !== undefined && max > 0) this.#general.learn(max, interval ?? this.#general.windowMs, this.#ceiling);
    const remaining = number('remaining');
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
  block(kind: 'general' | 'search', ms: number): void {
    (kind === 'search' ? this.#search : this.#general).blockFor(ms);
  }

  markDailyExhausted(): void {
    this.#dailyExhaustedUntil = this.#clock.now() + DAILY_PAUSE_MS;
  }
}
