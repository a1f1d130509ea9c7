import { mix, Rng } from './prng.js';
import type { Faults } from './types.js';

type FaultKind = 'none' | 'error' | 'truncate' | 'reset' | 'badJson';

export interface FaultPlan {
  kind: FaultKind;
  /** Delay before responding; 0 when not slow. */
  delayMs: number;
  /** When above 0, the body trickles one byte per this many ms (`hostile.trickleMs`). */
  trickleMs?: number;
}

export const NO_FAULT: FaultPlan = { kind: 'none', delayMs: 0 };

const DEFAULT_FAULTS: Faults = { errorRate: 0, slowRate: 0, slowMs: 2000, truncateRate: 0, resetRate: 0, stormUntilMs: 0, badJsonRate: 0 };

/** Draws faults from a seeded generator; at most one of reset, error, truncate, bad JSON per request, slow on top. */
export class FaultInjector {
  #faults: Faults;
  readonly #rng: Rng;

  constructor(seed: number, faults: Partial<Faults> | undefined) {
    this.#faults = { ...DEFAULT_FAULTS, ...faults };
    this.#rng = new Rng(mix(seed, 0xfa17));
  }

  set(faults: Partial<Faults>): void {
    this.#faults = { ...this.#faults, ...faults };
  }

  stormActive(nowMs: number): boolean {
    return nowMs < this.#faults.stormUntilMs;
  }

  stormRetryAfterSec(nowMs: number): number {
    return Math.max(1, Math.ceil((this.#faults.stormUntilMs - nowMs) / 1000));
  }

  plan(): FaultPlan {
    const f = this.#faults;
    if (f.resetRate + f.errorRate + f.truncateRate + f.badJsonRate + f.slowRate <= 0) return NO_FAULT;
    const roll = this.#rng.next();
    let kind: FaultKind = 'none';
    if (roll < f.resetRate) kind = 'reset';
    else if (roll < f.resetRate + f.errorRate) kind = 'error';
    else if (roll < f.resetRate + f.errorRate + f.truncateRate) kind = 'truncate';
    else if (roll < f.resetRate + f.errorRate + f.truncateRate + f.badJsonRate) kind = 'badJson';
    const delayMs = this.#rng.chance(f.slowRate) ? f.slowMs : 0;
    return { kind, delayMs };
  }
}
