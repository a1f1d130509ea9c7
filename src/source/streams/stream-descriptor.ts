import type { Normalizer, RecordKeys } from '../../normalize/index.js';
import type { RecordSource, StreamTable } from '../../sink/sink.js';

/** How a stream walks its endpoint; each names one walker in `source/walkers/`. */
export type PagingMode = 'cursor' | 'offset' | 'page' | 'none' | 'v2-newest-first';

/**
 * Which end of a v1 list comes first: `auto` detects it from the records' `created_at` and the
 * walk's own history; the spec does not say (v2 lists are newest first).
 */
export type OrderSetting = 'auto' | 'oldest_first' | 'newest_first';

/**
 * A stream as data: everything the engine needs to sync one endpoint. Built-in streams live in
 * `builtin-streams.ts`; config-declared v1 list endpoints become descriptors in `custom-streams.ts`.
 */
export interface StreamDescriptor {
  /** Stream name as configured (`calls`, `voicemails`, `numbers`, `v2_calls`, or a custom name). */
  readonly name: string;
  readonly api: 'v1' | 'v2';
  /** Path under the API's base: `/calls` for v1 (`{baseUrl}/api/v1/calls`), `/api/all/voicemails` for v2. */
  readonly path: string;
  /** Key of the record array inside the (unwrapped) payload. */
  readonly recordsKey: string;
  readonly paging: PagingMode;
  /** v1 list walks only; undefined: `upstream.order`. */
  readonly order?: OrderSetting;
  readonly source: RecordSource;
  readonly table: StreamTable;
  /** The engine's normalize step runs it on every record a walk yields. */
  readonly normalize: Normalizer;
  /**
   * The id and `created_at` that `normalize` gives a record, read alone: what a walk reads of
   * the records (its progress guards, the order of a list, a high-water mark) before the engine
   * normalizes them. A v2 walk passes over records it will not store again (the whole page of an
   * idle poll), so they are never normalized.
   */
  readonly keys: RecordKeys;
  /**
   * Synced before the business's other streams in a run, whatever the configured order: a CRM
   * sink reads it to map the others (the tracked numbers decide a call's customer). @defaultValue false
   */
  readonly syncFirst?: boolean;
}
