import type { Logger } from 'pino';
import { headerValue, type Budget, type ExchangeHead } from '../../src/http/index.js';
import type { SalesforceLimits } from './config.js';
import { SalesforceError } from './errors.js';

/** Time source; tests pass their own. */
interface AllocationClock {
  now(): number;
  sleep(ms: number): Promise<void>;
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
 *
 * As the {@link Budget} of the client: `acquire` waits for room (at most `limits.maxWaitSeconds`),
 * `settle` counts what Salesforce answered and reads its header.
 */
export class ApiAllocation implements Budget {
  readonly #limits: SalesforceLimits;
  readonly #clock: AllocationClock;
  readonly #logger: Logger;
  readonly #windowMs: number;
  readonly #sent: number[] = [];
  readonly #observed: Observation[] = [];
  #orgMax: number | undefined;
  #orgUsed = 0;
  #inFlight = 0;
  #waitingSince: number | undefined;

  constructor(limits: SalesforceLimits, clock: AllocationClock, logger: Logger) {
    this.#limits = limits;
    this.#clock = clock;
    this.#logger = logger;
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

  /** Waits until the allocation has room for one more request and reserves it, or throws when that is further off than `limits.maxWaitSeconds`. */
  async acquire(): Promise<void> {
    for (;;) {
      const wait = this.reserve();
      if (wait === undefined) {
        if (this.#waitingSince !== undefined)
          this.#logger.info({ waitedMs: this.#clock.now() - this.#waitingSince }, 'salesforce: room in the API allocation again; writing goes on');
        this.#waitingSince = undefined;
        return;
      }
      const now = this.#clock.now();
      const resumeAt = new Date(wait.untilMs).toISOString();
      if (wait.untilMs - now > this.#limits.maxWaitSeconds * 1000) {
        throw new SalesforceError('allocation', `salesforce: ${wait.reason}; writing stops until ${resumeAt} (wait longer than sink.limits.maxWaitSeconds)`, {
          resumeAt: wait.untilMs,
        });
      }
      if (this.#waitingSince === undefined) {
        this.#waitingSince = now;
        this.#logger.warn({ resumeAt }, `salesforce: ${wait.reason}; writing pauses until ${resumeAt}`);
      }
      await this.#clock.sleep(Math.max(10, wait.untilMs - now));
    }
  }

  /**
   * The reserved request was answered (its `Sforce-Limit-Info` read), or failed before reaching
   * Salesforce (`head` undefined: not counted). A 401 is not counted either: the session was refused.
   */
  settle(head: ExchangeHead | undefined): void {
    const now = this.#clock.now();
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    if (head === undefined) return;
    if (head.status !== 401) this.#sent.push(now);
    const usage = /api-usage=(\d+)\/(\d+)/.exec(headerValue(head.headers, 'sforce-limit-info') ?? '');
    if (usage !== null) this.#observe(now, Number(usage[1]), Number(usage[2]));
  }

  /**
   * The answer just settled was `REQUEST_LIMIT_EXCEEDED`: the org is full now, whatever was last
   * seen, and that request, refused for the limit, was not counted (its count is taken back).
   */
  exhausted(): void {
    const now = this.#clock.now();
    this.#sent.pop();
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
