/**
 * The `version` of each row written: microseconds since the epoch, strictly increasing within the
 * process. One writer holds a business × stream at a time (the sink's lease), and a rerun starts
 * later than the run it repeats, so a record's newest row has its highest version.
 */
export class VersionClock {
  readonly #now: () => number;
  #last = 0n;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  next(): bigint {
    const now = BigInt(Math.trunc(this.#now())) * 1000n;
    this.#last = now > this.#last ? now : this.#last + 1n;
    return this.#last;
  }
}
