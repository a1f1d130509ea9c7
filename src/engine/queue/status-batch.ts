import type { Logger } from 'pino';
import type { StatusPatch, StatusStore, StatusWrite } from '../state/index.js';

/** Longest a queued status patch waits before it is sent (a run that lasts shows its progress this late at most). */
const FLUSH_MS = 500;

/**
 * The status writes of one business job, sent together: the idle streams of a business end
 * within milliseconds of each other, so their run ends go out as one transaction at the job's
 * end; a run that lasts has its patches sent within {@link FLUSH_MS}. Patches of one stream keep
 * their order. A failed write is logged and never fails the job (the data is already stored).
 */
export class StatusBatch {
  readonly #store: StatusStore;
  readonly #logger: Logger;
  #pending: StatusWrite[] = [];
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<void> = Promise.resolve();

  constructor(store: StatusStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** Queues a patch; resolves at once (the write itself happens at the next flush). */
  readonly write = (business: string, stream: string, patch: StatusPatch): Promise<void> => {
    this.#pending.push({ business, stream, patch });
    this.#timer ??= setTimeout(() => void this.flush(), FLUSH_MS);
    return Promise.resolve();
  };

  /** Sends what is queued; resolves when every write so far has been tried. */
  flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const writes = this.#pending;
    if (writes.length > 0) {
      this.#pending = [];
      this.#chain = this.#chain
        .then(() => this.#store.writeMany(writes))
        .catch((error: unknown) => {
          const streams = [...new Set(writes.map((w) => `${w.business}/${w.stream}`))];
          this.#logger.warn({ streams, err: error instanceof Error ? error.message : String(error) }, 'status update failed');
        });
    }
    return this.#chain;
  }
}
