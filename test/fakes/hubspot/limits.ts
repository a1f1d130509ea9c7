import { randomUUID } from 'node:crypto';

/**
 * The fake portal's budget, at HubSpot's published numbers by default (Free/Starter private
 * app: 100 requests per rolling 10 s, 250,000 a day; CRM search 5 requests per second). Tests
 * that are not about the limits may scale the window down.
 */
export interface FakeLimits {
  /** Requests per rolling interval (`TEN_SECONDLY_ROLLING`). @defaultValue 100 */
  readonly max: number;
  /** @defaultValue 10000 */
  readonly intervalMs: number;
  /** Requests per second across everything counted, when set (HubSpot's `-Secondly` header). @defaultValue undefined: not enforced */
  readonly secondly: number | undefined;
  /** Requests per day. @defaultValue 250000 */
  readonly daily: number;
  /** CRM search requests per second. @defaultValue 5 */
  readonly searchPerSecond: number;
}

export const defaultLimits: FakeLimits = { max: 100, intervalMs: 10_000, secondly: undefined, daily: 250_000, searchPerSecond: 5 };

/** Which requests a limit counts; `search` and `associations` are HubSpot's classes that may be exempt from the 10-s window. */
export type RequestClass = 'general' | 'search' | 'associations';

/**
 * Where HubSpot's documents leave two readings open, the fake plays either. Exemptions: HubSpot's
 * reference marks search and v4 batch associations with `x-hubspot-rate-limit-exemptions:
 * ten-secondly`; with `false` the fake counts them against the 10-s window as well.
 */
export interface Exemptions {
  /** @defaultValue true */
  readonly search: boolean;
  /** @defaultValue true */
  readonly associations: boolean;
}

export interface Faults {
  /** The next N requests get a 429 `TEN_SECONDLY_ROLLING`. */
  rateLimitNext?: number;
  /** The next N search requests get a 429 `SECONDLY`. */
  searchRateLimitNext?: number;
  /** Every request gets a 429 `DAILY` until set back to false. */
  dailyExhausted?: boolean;
  /** The next N requests get a 500. */
  serverErrorsNext?: number;
  /** The next N call → contact pairs sent to associate-default fail (an error entry, no result). */
  associationErrorsNext?: number;
}

export interface Refusal {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Counts requests over rolling windows like HubSpot and answers with its headers and 429 bodies. */
export class FakeRateLimits {
  readonly #limits: FakeLimits;
  readonly #exempt: Exemptions;
  #faults: Required<Faults> = { rateLimitNext: 0, searchRateLimitNext: 0, dailyExhausted: false, serverErrorsNext: 0, associationErrorsNext: 0 };
  #stamps: number[] = [];
  #searchStamps: number[] = [];
  #daily = 0;
  readonly #refused = new Map<string, number>();

  constructor(limits: Partial<FakeLimits>, exemptions: Partial<Exemptions> = {}) {
    this.#limits = { ...defaultLimits, ...limits };
    this.#exempt = { search: true, associations: true, ...exemptions };
  }

  setFaults(faults: Faults): void {
    this.#faults = { ...this.#faults, ...faults };
  }

  /** Takes one pair failure from the `associationErrorsNext` fault, if any is left. */
  takeAssociationFault(): boolean {
    if (this.#faults.associationErrorsNext <= 0) return false;
    this.#faults.associationErrorsNext -= 1;
    return true;
  }

  /** 429s sent, by policy name (faults included). */
  refusals(): Record<string, number> {
    return Object.fromEntries(this.#refused);
  }

  /** Counts one request; returns the refusal to send instead of handling it, if any. */
  admit(kind: RequestClass, now = Date.now()): Refusal | undefined {
    if (this.#faults.dailyExhausted) return this.#rateLimited('DAILY', 'You have reached your daily limit.');
    if (this.#faults.rateLimitNext > 0) {
      this.#faults.rateLimitNext -= 1;
      return this.#rateLimited('TEN_SECONDLY_ROLLING', 'You have reached your ten_secondly_rolling limit.');
    }
    if (kind === 'search' && this.#faults.searchRateLimitNext > 0) {
      this.#faults.searchRateLimitNext -= 1;
      return this.#rateLimited('SECONDLY', 'You have reached your secondly limit.');
    }
    if (this.#faults.serverErrorsNext > 0) {
      this.#faults.serverErrorsNext -= 1;
      return { status: 500, body: { status: 'error', message: 'internal error', correlationId: randomUUID(), category: 'INTERNAL_ERROR' } };
    }
    this.#stamps = this.#stamps.filter((stamp) => stamp > now - this.#limits.intervalMs);
    this.#searchStamps = this.#searchStamps.filter((stamp) => stamp > now - 1000);
    const counted = !this.#isExempt(kind);
    if (counted && this.#stamps.length >= this.#limits.max)
      return this.#rateLimited('TEN_SECONDLY_ROLLING', 'You have reached your ten_secondly_rolling limit.');
    const { secondly } = this.#limits;
    if (counted && secondly !== undefined && this.#stamps.filter((stamp) => stamp > now - 1000).length >= secondly) {
      return this.#rateLimited('SECONDLY', 'You have reached your secondly limit.');
    }
    if (kind === 'search' && this.#searchStamps.length >= this.#limits.searchPerSecond)
      return this.#rateLimited('SECONDLY', 'You have reached your secondly limit.');
    if (this.#daily >= this.#limits.daily) return this.#rateLimited('DAILY', 'You have reached your daily limit.');
    if (counted) this.#stamps.push(now);
    if (kind === 'search') this.#searchStamps.push(now);
    this.#daily += 1;
    return undefined;
  }

  /** `X-HubSpot-RateLimit-*` headers of the current view (search answers carry none, as on HubSpot). */
  headers(kind: RequestClass, now = Date.now()): Record<string, string> {
    if (kind === 'search') return {};
    const recent = this.#stamps.filter((stamp) => stamp > now - this.#limits.intervalMs).length;
    const dailyRemaining = this.#faults.dailyExhausted ? 0 : Math.max(0, this.#limits.daily - this.#daily);
    const headers: Record<string, string> = {
      'x-hubspot-ratelimit-max': String(this.#limits.max),
      'x-hubspot-ratelimit-remaining': String(Math.max(0, this.#limits.max - recent)),
      'x-hubspot-ratelimit-interval-milliseconds': String(this.#limits.intervalMs),
      'x-hubspot-ratelimit-daily': String(this.#limits.daily),
      'x-hubspot-ratelimit-daily-remaining': String(dailyRemaining),
    };
    const { secondly } = this.#limits;
    if (secondly !== undefined) {
      const lastSecond = this.#stamps.filter((stamp) => stamp > now - 1000).length;
      headers['x-hubspot-ratelimit-secondly'] = String(secondly);
      headers['x-hubspot-ratelimit-secondly-remaining'] = String(Math.max(0, secondly - lastSecond));
    }
    if (this.#isExempt(kind)) headers['x-hubspot-rate-limit-exemptions'] = 'ten-secondly';
    return headers;
  }

  #isExempt(kind: RequestClass): boolean {
    return kind !== 'general' && this.#exempt[kind];
  }

  #rateLimited(policyName: string, message: string): Refusal {
    this.#refused.set(policyName, (this.#refused.get(policyName) ?? 0) + 1);
    return {
      status: 429,
      body: { status: 'error', message, errorType: 'RATE_LIMIT', correlationId: randomUUID(), policyName, groupName: 'api-calls' },
    };
  }
}
