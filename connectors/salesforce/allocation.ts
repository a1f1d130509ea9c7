import type { SalesforceLimits } from './config.js';

/** Time source; tests pass their own. */
interface AllocationClock {
  now(): number;
}

/** Why a request may not go now, and when it may. */
interface AllocationWait {
  readonly untilMs: number;
  /** One line for a person: what is used up, by what config key, and when it goes on. */
  readonly reason: string;
}

interface Observation {
  readonly at: number;
  readonly used: number;
}

/**
 * The org's API allocation as this process sees it. Two ceilings, both over Salesforce's rolling
 * window: callsync's own budget (`limits.share` of the org's allocation, and `requestsPer24h`
 * when set), counted from the requests this process sent; and the org's whole allocation, as the
 * `Sforce-Limit-Info: api-usage=N/M` header of every answer reports it (other integrations use it
 * too). A request is sent only when both have room, counting requests still in flight, so
 * callsync stops one request short of `REQUEST_LIMIT_EXCEEDED` instead of meeting it.
 *
 * When the org is full the client cannot see whose requests expire when; but every request the
 * org counted before an answer expires one window after that answer, so the earliest answer seen
 * in the window, plus the window, is when room opens.
 */
export class ApiAllocation {
  readonly #limits: SalesforceLimits;
  readonly #clock: AllocationClock;
  readonly #windowMs: number;
  readonly #sent: number[] = [];
  readonly #observed: Observation[] = [];
  #orgMax: number | undefined;
  #orgUsed = 0;
  #inFlight = 0;

  constructor(limits: SalesforceLimits, clock: AllocationClock) {
    this.#limits = limits;
    this.#clock = clock;
    this.#windowMs = limits.windowSeconds * 1000;
  }

  /** Callsync's own ceiling per window; undefined until the org's allocation is known and no fixed one is set. */
  get budget(): number | undefined {
    const share = this.#orgMax === undefined ? undefined : Math.max(1, Math.floor(this.#orgMax * this.#limits.share));
    const fixed = this.#limits.requestsPer24h ?? undefined;
    if (share === undefined) return fixed;
    return fixed === undefined ? share : Math.min(share, fixed);
  }

  /** Reserves one request now, or says how long to wait. Call {@link settle} when its answer (or failure) is in. */
  reserve(): AllocationWait | undefined {
    const now = this.#clock.now();
    this.#expire(now);
    const budget = this.budget;
    if (budget !== undefined && this.#sent.length + this.#inFlight >= budget) {
      const untilMs = (this.#sent[0] ?? now) + this.#windowMs;
      return {
        untilMs,
        reason: `callsync's share of the org's API allocation is used (${budget} requests per ${this.#windowLabel()}; sink.limits.share / sink.limits.requestsPer24h)`,
      };
    }
    if (this.#orgMax !== undefined && this.#orgUsed + this.#inFlight >= this.#orgMax) {
      const untilMs = (this.#observed[0]?.at ?? now) + this.#windowMs;
      return { untilMs, reason: `the org's API allocation is used up (Sforce-Limit-Info: api-usage=${this.#orgUsed}/${this.#orgMax})` };
    }
    this.#inFlight += 1;
    return undefined;
  }

  /** The reserved request was answered (`limitInfo`: its `Sforce-Limit-Info`) or failed before reaching Salesforce (`counted` false). */
  settle(counted: boolean, limitInfo: string | undefined): void {
    const now = this.#clock.now();
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (counted) this.#sent.push(now);
    const usage = /api-usage=(\d+)\/(\d+)/.exec(limitInfo ?? '');
    if (usage !== null) this.#observe(now, Number(usage[1]), Number(usage[2]));
  }

  /** Salesforce answered `REQUEST_LIMIT_EXCEEDED`: the org is full now, whatever was last seen. */
  exhausted(): void {
    const now = this.#clock.now();
    this.#observe(now, Math.max(this.#orgUsed, this.#orgMax ?? 0), this.#orgMax ?? Math.max(this.#orgUsed, 1));
  }

  /** Requests this process sent in the current window. */
  get used(): number {
    this.#expire(this.#clock.now());
    return this.#sent.length;
  }

  #observe(now: number, used: number, max: number): void {
    this.#orgMax = max;
    this.#orgUsed = used;
    this.#observed.push({ at: now, used });
  }

  #expire(now: number): void {
    const horizon = now - this.#windowMs;
    while (this.#sent.length > 0 && (this.#sent[0] ?? 0) <= horizon) this.#sent.shift();
    let aged = false;
    while (this.#observed.length > 0 && (this.#observed[0]?.at ?? 0) <= horizon) {
      this.#observed.shift();
      aged = true;
    }
    // What the org counted before the oldest answer has expired: room may have opened. One request
    // goes to find out; its answer's header sets the usage right again.
    if (aged && this.#orgMax !== undefined && this.#orgUsed >= this.#orgMax) this.#orgUsed = this.#orgMax - 1;
  }

  #windowLabel(): string {
    return this.#limits.windowSeconds === 86_400 ? '24 h' : `${this.#limits.windowSeconds} s`;
  }
}
