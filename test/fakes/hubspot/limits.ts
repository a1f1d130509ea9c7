import { randomUUID } from 'node:crypto';

/** The fake portal's budget; small windows keep tests fast. */
export interface FakeLimits {
  /** Requests per rolling interval (`TEN_SECONDLY_ROLLING`). @defaultValue 100 */
  readonly max: number;
  /** @defaultValue 10000 */
  readonly intervalMs: number;
  /** Requests per second. @defaultValue 20 */
  readonly secondly: number;
  /** Requests per day. @defaultValue 250000 */
  readonly daily: number;
  /** CRM search requests per second. @defaultValue 5 */
  readonly searchPerSecond: number;
}

export const defaultLimits: FakeLimits = { max: 100, intervalMs: 10_000, secondly: 20, daily: 250_000, searchPerSecond: 5 };

export interface Faults {
  /** The next N requests get a 429 `TEN_SECONDLY_ROLLING`. */
  rateLimitNext?: number;
  /** Every request gets a 429 `DAILY` until set back to false. */
  dailyExhausted?: boolean;
  /** The next N requests get a 500. */
  serverErrorsNext?: number;
}

export interface Refusal {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Counts requests over rolling windows like HubSpot and answers with its headers and 429 bodies. */
export class FakeRateLimits {
  readonly #limits: FakeLimits;
  #faults: Required<Faults> = { rateLimitNext: 0, dailyExhausted: false, serverErrorsNext: 0 };
  #stamps: number[] = [];
  #searchStamps: number[] = [];
  #daily = 0;

  constructor(limits: Partial<FakeLimits>) {
    this.#limits = { ...defaultLimits, ...limits };
  }

  setFaults(faults: Faults): void {
    this.#faults = { ...this.#faults, ...faults };
  }

  /** Counts one request; returns the refusal to send instead of handling it, if any. */
  admit(search: boolean, now = Date.now()): Refusal | undefined {
    if (this.#faults.dailyExhausted) return rateLimited('DAILY', 'You have reached your daily limit.');
    if (this.#faults.rateLimitNext > 0) {
      this.#faults.rateLimitNext -= 1;
      return rateLimited('TEN_SECONDLY_ROLLING', 'You have reached your ten_secondly_rolling limit.');
    }
    if (this.#faults.serverErrorsNext > 0) {
      this.#faults.serverErrorsNext -= 1;
      return { status: 500, body: { status: 'error', message: 'internal error', correlationId: randomUUID(), category: 'INTERNAL_ERROR' } };
    }
    this.#stamps = this.#stamps.filter((stamp) => stamp > now - this.#limits.intervalMs);
    this.#searchStamps = this.#searchStamps.filter((stamp) => stamp > now - 1000);
    if (this.#stamps.length >= this.#limits.max) return rateLimited('TEN_SECONDLY_ROLLING', 'You have reached your ten_secondly_rolling limit.');
    if (this.#stamps.filter((stamp) => stamp > now - 1000).length >= this.#limits.secondly) return rateLimited('SECONDLY', 'You have reached your secondly limit.');
    if (search && this.#searchStamps.length >= this.#limits.searchPerSecond) return rateLimited('SECONDLY', 'You have reached your secondly limit.');
    if (this.#daily >= this.#limits.daily) return rateLimited('DAILY', 'You have reached your daily limit.');
    this.#stamps.push(now);
    if (search) this.#searchStamps.push(now);
    this.#daily += 1;
    return undefined;
  }

  /** `X-HubSpot-RateLimit-*` headers of the current view (search answers carry none, as on HubSpot). */
  headers(search: boolean, now = Date.now()): Record<string, string> {
    if (search) return {};
    const recent = this.#stamps.filter((stamp) => stamp > now - this.#limits.intervalMs).length;
    const lastSecond = this.#stamps.filter((stamp) => stamp > now - 1000).length;
    const dailyRemaining = this.#faults.dailyExhausted ? 0 : Math.max(0, this.#limits.daily - this.#daily);
    return {
      'x-hubspot-ratelimit-max': String(this.#limits.max),
      'x-hubspot-ratelimit-remaining': String(Math.max(0, this.#limits.max - recent)),
      'x-hubspot-ratelimit-interval-milliseconds': String(this.#limits.intervalMs),
      'x-hubspot-ratelimit-secondly': String(this.#limits.secondly),
      'x-hubspot-ratelimit-secondly-remaining': String(Math.max(0, this.#limits.secondly - lastSecond)),
      'x-hubspot-ratelimit-daily': String(this.#limits.daily),
      'x-hubspot-ratelimit-daily-remaining': String(dailyRemaining),
    };
  }
}

function rateLimited(policyName: string, message: string): Refusal {
  return {
    status: 429,
    body: { status: 'error', message, errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName, groupName: 'api-calls' },
  };
}
