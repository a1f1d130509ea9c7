import { abortableSleep } from '../../src/http-policy/index.js';

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
