import type { Logger } from 'pino';
import { openRecordingState } from '../recordings/index.js';
import type { Batch } from '../../src/sink/sink.js';
import type { StateStoreConfig } from '../state-stores/index.js';

/**
 * The public links of archived recordings (`recordings.publicBaseUrl` set), which a CRM target
 * sends instead of upstream's. They are read from the archive's `recordings` table in the CRM
 * sink's `state:` database, where `backfill --recordings` keeps it for a CRM sink, once per batch.
 */
export interface ArchivedLinks {
  /** By id, the links of those of `ids` whose recording is archived; an id left out has none yet. */
  of(businessId: string, stream: string, ids: readonly string[]): Promise<ReadonlyMap<string, string>>;
  close(): Promise<void>;
}

/** A batch's links when the archive is not served (no `publicBaseUrl`): none, so upstream's go. */
const NO_ARCHIVED_LINKS: ReadonlyMap<string, string> = new Map();

/** The archived links of a batch's records, by id: one read per batch, none without an archive served. */
export async function archivedLinksOfBatch(links: ArchivedLinks | undefined, batch: Batch): Promise<ReadonlyMap<string, string>> {
  if (links === undefined) return NO_ARCHIVED_LINKS;
  return links.of(
    batch.businessId,
    batch.table.stream,
    batch.records.map((record) => record.id),
  );
}

/**
 * Opens the archive's state in the `state:` database (its table created when missing).
 * @throws RecordingsSetupError when the `state:` database cannot hold it
 */
export async function openArchivedLinks(state: StateStoreConfig, publicBaseUrl: string, logger: Logger): Promise<ArchivedLinks> {
  const store = await openRecordingState(state, logger);
  return {
    of: (businessId, stream, ids) => store.archivedLinks(businessId, stream, ids, publicBaseUrl),
    close: () => store.close(),
  };
}
