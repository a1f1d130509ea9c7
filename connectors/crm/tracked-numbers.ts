import type { StreamTable } from '../../src/sink/sink.js';
import type { StateStoreRecords } from '../../src/sink/parts.js';
import { toE164 } from './other-party.js';

/** The built-in stream of a business's tracked numbers and its column holding the number. */
const NUMBERS_STREAM = 'numbers';
const NUMBER_COLUMN = 'number';

interface TrackedNumbersOptions {
  /** The CRM sink's state store, where the `numbers` stream's records are kept. */
  readonly records: Pick<StateStoreRecords, 'columnValues'>;
  /**
   * Numbers listed in the sink's config (`trackedNumbers`), any typing, tracked for every
   * business: for businesses whose numbers stream is not synced (v2 only). @defaultValue none
   */
  readonly configured?: readonly string[];
}

/**
 * A business's tracked numbers in E.164, as a CRM target needs them for {@link otherParty}: the
 * configured ones plus those the `numbers` stream stored in the state store. The store is read
 * at every call (one small query per batch), so numbers synced by another worker or earlier in
 * the run count at once, and nothing goes stale. Before the numbers table is prepared (the
 * stream is not synced for any business) only the configured numbers count.
 */
export class TrackedNumbers {
  readonly #options: TrackedNumbersOptions;
  readonly #configured: ReadonlySet<string>;
  #table: StreamTable | undefined;

  constructor(options: TrackedNumbersOptions) {
    this.#options = options;
    this.#configured = new Set((options.configured ?? []).flatMap((number) => toE164(number) ?? []));
  }

  /** Call from the target's `prepare`: notes the numbers stream's table when it is among `tables`. */
  prepare(tables: readonly StreamTable[]): void {
    this.#table ??= tables.find((table) => table.stream === NUMBERS_STREAM && table.columns.some((column) => column.name === NUMBER_COLUMN));
  }

  /** The business's tracked numbers (E.164) now. Throws when the state store cannot be read. */
  async of(businessId: string): Promise<ReadonlySet<string>> {
    if (this.#table === undefined) return this.#configured;
    const stored = await this.#options.records.columnValues(businessId, this.#table, NUMBER_COLUMN);
    if (stored.length === 0) return this.#configured;
    const numbers = new Set(this.#configured);
    for (const value of stored) {
      const e164 = toE164(value);
      if (e164 !== null) numbers.add(e164);
    }
    return numbers;
  }
}
