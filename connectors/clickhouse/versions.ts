/**
 * The version a ReplacingMergeTree row carries: the newest version of a key is its current row.
 * A version is the wall clock in microseconds, but never lower than one more than the last this
 * process gave, nor than one more than the highest stored version of the keys it is about to
 * write (the caller reads those first). So versions of a key rise across replays, reruns and
 * processes (one writer per business × stream holds the lease), even when a clock steps back,
 * and two writes of one key never tie (a tie would leave the survivor to the merge order).
 * Microseconds stay below 2^53 until the year 2255, so a version is an exact JavaScript number.
 */
export class VersionClock {
  #last = 0;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** `count` consecutive versions (the first returned), all above `above`. */
  next(above = 0, count = 1): number {
    const first = Math.max(this.#now() * 1000, this.#last + 1, above + 1);
    this.#last = first + count - 1;
    return first;
  }
}
