import type { Json } from '../base/json.js';
import type { ColumnValue } from './column-types.js';
import type { NormalizeContext, Normalizer } from './records.js';

/** A record in v1 form, ready for the sink (the sink contract's `SyncRecord`). */
interface NormalizedRecord<Source extends string> {
  readonly businessId: string;
  readonly id: string;
  readonly source: Source;
  readonly fields: Readonly<Record<string, ColumnValue>>;
  /** The upstream record exactly as received. */
  readonly raw: Json;
}

/** A record that could not be put in v1 form, kept whole with why (the sink contract's `DeadLetter`). */
interface RejectedRecord {
  readonly businessId: string;
  readonly stream: string;
  /** Names the upstream field, e.g. `voicemail_created_at: unparseable "2024-13-01"`. */
  readonly reason: string;
  readonly raw: Json;
}

/** One page after the normalize stage: what the sink is handed. */
interface NormalizedPage<Source extends string> {
  /** In page order; a repeated id is kept as it came (the sink collapses repeats, the later copy wins). */
  readonly records: NormalizedRecord<Source>[];
  readonly deadLetters: RejectedRecord[];
  /** Two records of the page share an id: nearly never, and then the engine names those that differ. */
  readonly repeatsAnId: boolean;
}

/**
 * The normalize stage of one page: every raw record through its stream's normalizer (which never
 * throws), in page order, into the records the sink stores and the dead letters it keeps. The
 * check for a repeated id is one set insertion per record.
 */
export function normalizePage<Source extends string>(
  raws: readonly Json[],
  normalize: Normalizer,
  context: NormalizeContext,
  businessId: string,
  stream: string,
  source: Source,
): NormalizedPage<Source> {
  const records: NormalizedRecord<Source>[] = [];
  const deadLetters: RejectedRecord[] = [];
  const ids = new Set<string>();
  for (let index = 0; index < raws.length; index++) {
    const raw = raws[index] as Json;
    const result = normalize(raw, context);
    if (result.ok) {
      records.push({ businessId, id: result.id, source, fields: result.fields, raw });
      ids.add(result.id);
    } else deadLetters.push({ businessId, stream, reason: result.reason, raw });
  }
  return { records, deadLetters, repeatsAnId: ids.size !== records.length };
}
