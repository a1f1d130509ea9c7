import { chunks } from '../../base/chunks.js';
import { canonicalJson } from '../../normalize/index.js';
import type { DeadLetter, Json, JsonObject, RecordSource, Sink, SinkNote, SyncRecord, WriteResult } from '../../sink/sink.js';
import type { StreamDescriptor } from '../../source/streams/stream-descriptor.js';
import type { WalkItem, WalkPage } from '../../source/walkers/index.js';

/**
 * Writes one page in parts of the sink's `maxBatchSize`. Only the last part moves the checkpoint
 * past the page (earlier parts carry the position before it), so a cut-off in between repeats the
 * page and never skips its rest.
 */
export async function storePage(
  sink: Pick<Sink, 'capabilities' | 'write'>,
  businessId: string,
  descriptor: StreamDescriptor,
  page: WalkPage,
  positionBefore: JsonObject | undefined,
): Promise<WriteResult> {
  const { records, deadLetters } = toPageRecords(businessId, descriptor.name, descriptor.source, page.items);
  // A page without records is still written once: its dead letters, and the checkpoint past it.
  const parts = records.length === 0 ? [records] : chunks(records, sink.capabilities.maxBatchSize);
  const total = { written: 0, unchanged: 0, deadLettered: 0 };
  let notes: SinkNote[] | undefined;
  for (const [index, part] of parts.entries()) {
    const last = index === parts.length - 1;
    const result = await sink.write(
      { businessId, table: descriptor.table, records: part, deadLetters: index === 0 ? deadLetters : [] },
      (last ? page.position : positionBefore) ?? {},
    );
    total.written += result.written;
    total.unchanged += result.unchanged;
    total.deadLettered += result.deadLettered;
    if (result.notes !== undefined) notes = addNotes(notes ?? [], result.notes);
  }
  return notes === undefined ? total : { ...total, notes };
}

/** `into` with `more` added, one note per code (counts summed, the first message kept). */
export function addNotes(into: readonly SinkNote[], more: readonly SinkNote[]): SinkNote[] {
  const byCode = new Map(into.map((note) => [note.code, note]));
  for (const note of more) {
    const known = byCode.get(note.code);
    byCode.set(note.code, known === undefined ? note : { ...known, count: known.count + note.count });
  }
  return [...byCode.values()];
}

interface PageRecords {
  readonly records: SyncRecord[];
  readonly deadLetters: DeadLetter[];
}

/**
 * Splits a page into records and dead letters, in page order. A repeated id is kept as it came:
 * the sink collapses repeats (the later copy wins) for every connector; `mergedIds` names them.
 */
export function toPageRecords(businessId: string, stream: string, source: RecordSource, items: readonly WalkItem[]): PageRecords {
  const records: SyncRecord[] = [];
  const deadLetters: DeadLetter[] = [];
  for (const { raw, result } of items) {
    if (result.ok) records.push({ businessId, id: result.id, source, fields: result.fields, raw });
    else deadLetters.push({ businessId, stream, reason: result.reason, raw });
  }
  return { records, deadLetters };
}

// Rewrites: what changed a record on its way to the sink, said rather than done silently

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
 * The records of a payload decoded from bytes that were not UTF-8 that hold U+FFFD, by id (a
 * record without one by its place on the page). Only such payloads are read (`hadInvalidUtf8`),
 * so a page of valid UTF-8 costs nothing here.
 */
export function replacedUtf8(payload: JsonObject, descriptor: StreamDescriptor, idOf: (raw: Json) => string | undefined): { ids: string[]; message: string } {
  const records = payload[descriptor.recordsKey];
  const ids = (Array.isArray(records) ? records : [])
    .map((raw, place) => (JSON.stringify(raw).includes('\uFFFD') ? (idOf(raw) ?? `(record ${place + 1} of the page, no id)`) : undefined))
    .filter((id): id is string => id !== undefined);
  const message =
    `GET ${descriptor.path}: ${ids.length} record(s) came with bytes that are not UTF-8, stored in raw as U+FFFD: ${shown(ids)}; ` +
    'the upstream sent text in another encoding or corrupted it';
  return { ids, message };
}

/** True when two stored records of the page share an id: nearly never, so this is a set insertion per record. */
function repeatsAnId(items: readonly WalkItem[]): boolean {
  const ids = new Set<string>();
  for (const { result } of items) {
    if (!result.ok) continue;
    const before = ids.size;
    if (ids.add(result.id).size === before) return true;
  }
  return false;
}

/**
 * Ids shared on one page by records that differ (`1` and `"1"` both read as id "1"): the sink
 * keeps one row, the later record. Exact copies lose nothing and are not named. Records are kept
 * and compared only on a page where an id repeats.
 */
export function mergedIds(items: readonly WalkItem[], descriptor: StreamDescriptor): { ids: string[]; message: string } | undefined {
  if (!repeatsAnId(items)) return undefined;
  const first = new Map<string, Json>();
  let merged: Set<string> | undefined;
  for (const { raw, result } of items) {
    if (!result.ok) continue;
    const seen = first.get(result.id);
    if (seen === undefined) first.set(result.id, raw);
    else if (canonicalJson(seen) !== canonicalJson(raw)) (merged ??= new Set()).add(result.id);
  }
  if (merged === undefined) return undefined;
  const ids = [...merged];
  return {
    ids,
    message: `GET ${descriptor.path}: records that differ share an id on one page, so one row keeps the later of them: ${shown(ids)}`,
  };
}
