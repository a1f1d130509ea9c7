/** The archive's storage failed while a recording streamed into it: the pass stops (the cause is the store's error, with its code). */
export class ArchiveStoreError extends Error {
  override readonly name = 'ArchiveStoreError';
  readonly code = 'RECORDINGS_ARCHIVE_FAILED';

  constructor(key: string, cause: unknown) {
    super(`storing the recording ${key} failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** A setup the archive cannot run with (its state needs the sink's SQL database); the message says the fix. */
export class RecordingsSetupError extends Error {
  override readonly name = 'RecordingsSetupError';
  readonly code = 'RECORDINGS_SETUP';
}
