import pLimit from 'p-limit';
import { adoptStored } from './adopt.js';
import { archiveRecording, type DownloadOptions, type RecordingOutcome } from './download.js';
import { archiveKey, checksumObject, extensionOf, type RecordingRef } from './keys.js';
import type { RecordingSource, RecordingStateStore, WithdrawnRecording } from './state.js';

/** One recording done, for the person watching: what became of it and its bytes. */
export interface ArchiveProgress {
  readonly ref: RecordingRef;
  readonly outcome: RecordingOutcome;
}

interface ArchiverOptions {
  readonly state: RecordingStateStore;
  /** The stream tables whose records carry a recording link. */
  readonly sources: readonly RecordingSource[];
  /** Everything a download needs but its business's budget and credentials. */
  readonly download: Omit<DownloadOptions, 'acquire' | 'credentials'>;
  /** The budget a business's download waits on, per request (the recordings host's, and the API's when counted). */
  readonly acquire?: (businessId: string, url: URL) => Promise<void>;
  /** Headers a business's links on the API's own origin carry. @defaultValue none */
  readonly credentials?: (businessId: string) => DownloadOptions['credentials'];
  /** Downloads in flight at once, over every business. */
  readonly concurrency: number;
  readonly onProgress?: (progress: ArchiveProgress) => void;
  /**
   * Remove a recording (object and checksum) once its record is marked deleted, which only the
   * reconcile's deletion guard does. @defaultValue false: kept
   */
  readonly deleteWithRecord?: boolean;
  /** A recording removed with its record. */
  readonly onRemoved?: (ref: RecordingRef) => void;
  /** @defaultValue the clock */
  readonly now?: () => Date;
}

/** A state row's identity within one business. */
function rowKey(ref: RecordingRef): string {
  return `${ref.stream}\u0000${ref.id}`;
}

/** Pending rows read per round: enough to keep `concurrency` downloads busy between reads. */
const ROUND_PER_SLOT = 8;

/**
 * Archives the recordings of stored records, business by business: `poke` after a page is stored
 * starts (or repeats, once the running pass ends) a pass that adds the business's new links as
 * `pending` and downloads every pending one. Each row leaves `pending` when its download ends, so a
 * pass always ends; a rerun after a crash finds the rows not yet `archived` and does those alone.
 * The first storage failure or abort stops every pass, and `finish` rethrows it.
 */
export class Archiver {
  readonly #options: ArchiverOptions;
  readonly #limit: ReturnType<typeof pLimit>;
  readonly #running = new Map<string, Promise<void>>();
  readonly #again = new Set<string>();
  #fatal: { readonly error: unknown } | undefined;

  constructor(options: ArchiverOptions) {
    this.#options = options;
    this.#limit = pLimit(options.concurrency);
  }

  /** A page of `businessId` was stored: archive what it brought, now or right after the pass in flight. */
  poke(businessId: string): void {
    if (this.#fatal !== undefined) return;
    if (this.#running.has(businessId)) {
      this.#again.add(businessId);
      return;
    }
    const pass = this.#passes(businessId)
      .catch((error: unknown) => {
        this.#fatal ??= { error };
      })
      .finally(() => this.#running.delete(businessId));
    this.#running.set(businessId, pass);
  }

  /** One last pass for each business, then waits for every pass; rethrows the first fatal failure. */
  async finish(businessIds: readonly string[]): Promise<void> {
    for (const businessId of businessIds) this.poke(businessId);
    while (this.#running.size > 0) await Promise.all(this.#running.values());
    if (this.#fatal !== undefined) throw this.#fatal.error;
  }

  /**
   * One pass for `businessId`, awaited, outside `poke`'s bookkeeping: `run`'s queue makes each job
   * one pass, so a failure (storage, an abort) rejects that pass alone and the next job starts
   * afresh. Downloads share the `concurrency` slots with every other pass.
   */
  async pass(businessId: string): Promise<void> {
    await this.#pass(businessId);
  }

  async #passes(businessId: string): Promise<void> {
    do {
      this.#again.delete(businessId);
      await this.#pass(businessId);
    } while (this.#again.has(businessId) && this.#fatal === undefined);
  }

  async #pass(businessId: string): Promise<void> {
    const { state, sources } = this.#options;
    const now = (): string => (this.#options.now?.() ?? new Date()).toISOString();
    for (const source of sources) await state.enqueue(businessId, source, now());
    const round = this.#options.concurrency * ROUND_PER_SLOT;
    if (this.#options.deleteWithRecord === true) {
      for (const source of sources) {
        for (
          let gone = await state.withdrawn(businessId, source, round);
          gone.length > 0 && this.#fatal === undefined;
          gone = await state.withdrawn(businessId, source, round)
        ) {
          await Promise.all(gone.map((recording) => this.#limit(() => this.#remove(recording, now))));
        }
      }
    }
    await this.#downloadPending(businessId, round, now);
  }

  /**
   * Downloads every pending row of `businessId`, reading the next rows while the slots are still
   * busy: waiting for a whole round to end would leave a slot idle behind each round's slowest
   * download. A row stays `pending` until its download is settled, so a read skips the rows in
   * flight; the first failure stops new downloads, waits for those in flight, and is thrown.
   */
  async #downloadPending(businessId: string, round: number, now: () => string): Promise<void> {
    const { state, concurrency } = this.#options;
    const inFlight = new Map<string, Promise<void>>();
    let failure: { readonly error: unknown } | undefined;
    const stopped = (): boolean => failure !== undefined || this.#fatal !== undefined;
    while (!stopped()) {
      const refs = (await state.pending(businessId, round + inFlight.size)).filter((ref) => !inFlight.has(rowKey(ref)));
      if (refs.length === 0) {
        if (inFlight.size === 0) break;
        await Promise.race(inFlight.values());
        continue;
      }
      for (const ref of refs) {
        const key = rowKey(ref);
        const download = this.#limit(() => (stopped() ? undefined : this.#archive(ref, now)))
          .catch((error: unknown) => {
            failure ??= { error };
          })
          .finally(() => inFlight.delete(key));
        inFlight.set(key, download);
      }
      // Read again once the rows read are nearly all started, so a slot never waits on the read.
      while (inFlight.size > concurrency && !stopped()) await Promise.race(inFlight.values());
    }
    await Promise.all(inFlight.values());
    if (failure !== undefined) throw failure.error;
  }

  /**
   * Removes the object and its checksum, then marks the row: a crash in between leaves the row as
   * it was, and the next pass removes again (removing a missing key is no error). A pending row
   * may have an object from a crash between its put and its row update, under the key its link's
   * extension gives; expired and failed rows have none.
   */
  async #remove(recording: WithdrawnRecording, now: () => string): Promise<void> {
    if (this.#fatal !== undefined) return;
    const { store } = this.#options.download;
    const key = recording.key ?? (recording.state === 'pending' ? archiveKey(recording, extensionOf(recording.url, undefined)) : undefined);
    if (key !== undefined) {
      await store.delete(key);
      await store.delete(checksumObject(key, '').key);
    }
    await this.#options.state.markDeleted(recording, now());
    this.#options.onRemoved?.(recording);
  }

  async #archive(ref: RecordingRef, now: () => string): Promise<void> {
    if (this.#fatal !== undefined) return;
    const { acquire, credentials, download } = this.#options;
    // A crash after the put and before the row update left it stored: taken as it is, not asked again.
    const outcome =
      (await adoptStored(download.store, ref, download.maxBytes)) ??
      (await archiveRecording(ref, {
        ...download,
        ...(acquire === undefined ? {} : { acquire: (url: URL) => acquire(ref.businessId, url) }),
        credentials: credentials?.(ref.businessId),
      }));
    await this.#options.state.settle(ref, outcome, now());
    this.#options.onProgress?.({ ref, outcome });
  }
}
