import { canonicalJson } from '../../normalize/index.js';
import type { Json, SinkNote } from '../../sink/sink.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';

/**
 * What the engine says about a page besides storing it, off the per-page path: the rewrites of
 * records on their way to the sink (each named in a warning and counted) and the sink's notes,
 * summed over a run.
 */

/** `into` with `more` added, one note per code (counts summed, the first message kept). */
export function addNotes(into: readonly SinkNote[], more: readonly SinkNote[]): SinkNote[] {
  const byCode = new Map(into.map((note) => [note.code, note]));
  for (const note of more) {
    const known = byCode.get(note.code);
    byCode.set(note.code, known === undefined ? note : { ...known, count: known.count + note.count });
  }
  return [...byCode.values()];
}

/**
 * What changed a record between upstream and the sink, for the operator's warning and the
 * `callsync_records_rewritten_total{reason}` counter: bytes that were not UTF-8 (stored as
 * U+FFFD in `raw`), or records that differ but share an id on one page (one row keeps the later).
 */
export type RewriteReason = 'invalid_utf8' | 'merged_id';

/** Ids named in one warning; the count says how many there were in all. */
const SHOWN_IDS = 5;

function shown(ids: readonly string[]): string {
  const named = ids
    .slice(0, SHOWN_IDS)
    .map((id) => JSON.stringify(id))
    .join(', ');
  return ids.length > SHOWN_IDS ? `${named} and ${ids.length - SHOWN_IDS} more` : named;
}

/**
 * The records of a page decoded from bytes that were not UTF-8 that hold U+FFFD, by id (a record
 * without one by its place on the page). Only such pages are read (`WalkPage.replacedUtf8`), so a
 * page of valid UTF-8 costs nothing here.
 */
export function replacedUtf8(
  records: readonly Json[],
  descriptor: StreamDescriptor,
  idOf: (raw: Json) => string | undefined,
): { ids: string[]; message: string } {
  const ids = records
    .map((raw, place) => (JSON.stringify(raw).includes('\uFFFD') ? (idOf(raw) ?? `(record ${place + 1} of the page, no id)`) : undefined))
    .filter((id): id is string => id !== undefined);
  const message =
    `GET ${descriptor.path}: ${ids.length} record(s) came with bytes that are not UTF-8, stored in raw as U+FFFD: ${shown(ids)}; ` +
    'the upstream sent text in another encoding or corrupted it';
  return { ids, message };
}

/**
 * Ids shared on one page by records that differ (`1` and `"1"` both read as id "1"): the sink
 * keeps one row, the later record. Exact copies lose nothing and are not named. Read only on a
 * page where an id repeats (`NormalizedPage.repeatsAnId`).
 */
export function mergedIds(
  records: readonly { readonly id: string; readonly raw: Json }[],
  descriptor: StreamDescriptor,
): { ids: string[]; message: string } | undefined {
  const first = new Map<string, Json>();
  let merged: Set<string> | undefined;
  for (const { id, raw } of records) {
    const seen = first.get(id);
    if (seen === undefined) first.set(id, raw);
    else if (canonicalJson(seen) !== canonicalJson(raw)) (merged ??= new Set()).add(id);
  }
  if (merged === undefined) return undefined;
  const ids = [...merged];
  return {
    ids,
    message: `GET ${descriptor.path}: records that differ share an id on one page, so one row keeps the later of them: ${shown(ids)}`,
  };
}
