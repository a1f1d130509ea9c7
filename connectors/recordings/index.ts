import type { Logger } from 'pino';
import type { StreamTable } from '../../src/sink/sink.js';
import { openObjectStore, type ObjectStore } from '../object-storage/index.js';
import { postgresDialect } from '../postgres/index.js';
import type { SqlDialect } from '../sql/index.js';
import { sqliteDialect } from '../sqlite/index.js';
import type { recordingsConfigSchema } from './config.js';
import { RecordingsSetupError } from './errors.js';
import { RecordingStateStore, type RecordingSource } from './state.js';
import type { z } from 'zod';

export { Archiver, type ArchiveProgress } from './archiver.js';
export type { RecordingSource, RecordingState, RecordingStateStore } from './state.js';

/** The `recordings:` section, parsed. */
type RecordingsConfig = z.output<typeof recordingsConfigSchema>;

/**
 * The SQL databases the archive's state can live in, by the sink's `type`: its table sits beside
 * the records it joins. A dialect that offers `openDriver` is one line here.
 */
const stateDialects: Readonly<Record<string, SqlDialect<{ readonly type: string }>>> = {
  sqlite: sqliteDialect,
  postgres: postgresDialect,
};

/** The stream tables whose records carry a recording link and a creation time. */
export function recordingSources(tables: readonly StreamTable[]): RecordingSource[] {
  return tables
    .filter((table) => table.columns.some((column) => column.name === 'recording_url') && table.columns.some((column) => column.name === 'created_at'))
    .map((table) => ({ stream: table.stream, table: table.table }));
}

/** The archive's two halves: where recordings go and where their state is kept. */
export interface RecordingArchive {
  readonly store: ObjectStore;
  readonly state: RecordingStateStore;
  close(): Promise<void>;
}

type SinkSection = { readonly type: string; readonly [key: string]: unknown };

/**
 * The database the archive's state lives in: the sink's own when it is one (its table joins the
 * records), else its `state:` store's (a CRM sink keeps its copy of the records there, so the
 * table joins them just the same); undefined when neither is a database the state can live in.
 */
function stateDatabase(sink: SinkSection): { readonly database: SinkSection; readonly dialect: SqlDialect<{ readonly type: string }> } | undefined {
  const state = sink.state;
  for (const database of [sink, typeof state === 'object' && state !== null && 'type' in state ? (state as SinkSection) : undefined]) {
    if (database === undefined || !Object.hasOwn(stateDialects, database.type)) continue;
    const dialect = stateDialects[database.type];
    if (dialect?.openDriver !== undefined) return { database, dialect };
  }
  return undefined;
}

/**
 * Opens the archive's state table in the sink's database (or its `state:` store's), created when missing.
 * @throws RecordingsSetupError when neither is a SQL database the state can live in
 */
export async function openRecordingState(sink: SinkSection, logger: Logger): Promise<RecordingStateStore> {
  const found = stateDatabase(sink);
  if (found?.dialect.openDriver === undefined)
    throw new RecordingsSetupError(
      `recordings: the archive keeps its state beside the records, in the sink's database or its state: store's; sink.type "${sink.type}" cannot hold it (use ${Object.keys(stateDialects).join(' or ')})`,
    );
  const { adapter, driver } = await found.dialect.openDriver(found.database, logger);
  const state = new RecordingStateStore(adapter, driver);
  try {
    await state.prepare();
    return state;
  } catch (error) {
    await state.close();
    throw error;
  }
}

/**
 * Opens the archive's storage (and pings it) and its state table in the sink's database.
 * @throws RecordingsSetupError when the sink is no SQL database the state can live in
 */
export async function openRecordingArchive(config: Pick<RecordingsConfig, 'archive'>, sink: SinkSection, logger: Logger): Promise<RecordingArchive> {
  const state = await openRecordingState(sink, logger);
  let store: ObjectStore | undefined;
  try {
    store = await openObjectStore(config.archive);
    await store.ping();
  } catch (error) {
    await store?.close();
    await state.close();
    throw error;
  }
  const opened = store;
  return {
    store: opened,
    state,
    close: async () => {
      await opened.close();
      await state.close();
    },
  };
}
