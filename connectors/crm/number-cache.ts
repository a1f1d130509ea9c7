import { chunks } from '../../src/base/chunks.js';

/** How long "nobody has this number" is believed before the CRM is asked again. */
export const NEGATIVE_CACHE_MS = 10 * 60_000;
/** Numbers whose answer is kept; the oldest are dropped beyond it, so a long-lived worker's memory stays bounded. */
const MAX_CACHED_NUMBERS = 50_000;

interface NumberCacheOptions {
  /**
   * Asks the CRM about numbers not known yet; resolves with an id, or null for nobody, per number.
   * A rejection is no answer: those numbers are asked again at the next lookup.
   */
  readonly lookUp: (numbers: readonly string[]) => Promise<ReadonlyMap<string, string | null>>;
  readonly clock: { now(): number };
  /** Numbers per `lookUp` call at most (a search's `IN` limit). @defaultValue all in one call */
  readonly perLookup?: number;
  /** @defaultValue {@link MAX_CACHED_NUMBERS} */
  readonly maxCached?: number;
}

/**
 * A caller number's CRM record (a HubSpot contact, a Salesforce Who), shared by the CRM
 * connectors: numbers not known yet are looked up in batches; found ids are kept for the life of
 * the sink, misses for {@link NEGATIVE_CACHE_MS}, at most `maxCached` numbers (oldest out);
 * concurrent lookups of one number share one answer.
 */
export class NumberCache {
  readonly #options: NumberCacheOptions;
  readonly #known = new Map<string, Promise<string | null>>();
  readonly #missedAt = new Map<string, number>();

  constructor(options: NumberCacheOptions) {
    this.#options = options;
  }

  /** The id (or null) of every number. */
  async resolveAll(numbers: Iterable<string>): Promise<Map<string, string | null>> {
    const wanted = [...new Set(numbers)];
    const now = this.#options.clock.now();
    for (const number of wanted) {
      const missedAt = this.#missedAt.get(number);
      if (missedAt !== undefined && now - missedAt >= NEGATIVE_CACHE_MS) this.forget(number);
    }
    const todo = wanted.filter((number) => !this.#known.has(number));
    for (const part of chunks(todo, this.#options.perLookup ?? Number.POSITIVE_INFINITY)) {
      const lookup = this.#options.lookUp(part);
      for (const number of part) {
        const answer = lookup.then((found) => found.get(number) ?? null);
        this.#known.set(number, answer);
        answer.then(
          (id) => void (id === null && this.#missedAt.set(number, this.#options.clock.now())),
          () => void this.forget(number),
        );
      }
    }
    const pending = wanted.map((number) => [number, this.#known.get(number) ?? Promise.resolve(null)] as const);
    this.#trim();
    return new Map(await Promise.all(pending.map(async ([number, answer]) => [number, await answer] as const)));
  }

  /** Drops what is known about a number (its record may be gone): the next lookup asks the CRM. */
  forget(number: string): void {
    this.#known.delete(number);
    this.#missedAt.delete(number);
  }

  #trim(): void {
    for (const number of this.#known.keys()) {
      if (this.#known.size <= (this.#options.maxCached ?? MAX_CACHED_NUMBERS)) return;
      this.forget(number);
    }
  }
}
