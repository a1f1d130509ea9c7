import type { CallOverride } from './call-factory.js';
import type { CallStore } from './call-store.js';
import type { HostileRecords } from './types.js';

/** A transcription holding a lone high surrogate: served as `\ud800` in the JSON text. */
export const LONE_SURROGATE_TEXT = 'The caller said \ud800 and hung up';

const LONG_SENTENCE = 'The caller kept talking about the order and the delivery date. ';

/** The overrides of the switched-on hostile records, in the fixed order deep, surrogate, oversized. */
function overrides(records: Partial<HostileRecords>): CallOverride[] {
  const out: CallOverride[] = [];
  if ((records.deepNesting ?? 0) > 0) out.push({ customDataDepth: records.deepNesting });
  if (records.loneSurrogate === true) out.push({ transcription: LONE_SURROGATE_TEXT });
  const bytes = records.oversizedFieldBytes ?? 0;
  if (bytes > 0) out.push({ transcription: LONG_SENTENCE.repeat(Math.ceil(bytes / LONG_SENTENCE.length)).slice(0, bytes) });
  return out;
}

/**
 * Makes existing calls hostile to the sink, from ascending index `firstIndex` on (those past the
 * end are skipped); returns their ids.
 */
export function makeHostile(store: CallStore, records: Partial<HostileRecords>): string[] {
  const first = records.firstIndex ?? 10;
  return overrides(records).flatMap((patch, i) => {
    const index = first + i;
    if (index >= store.length) return [];
    store.override(index, patch);
    return [store.model(index).id];
  });
}

/** Appends one new call (created now) per switched-on hostile record; returns their ids. */
export function appendHostile(store: CallStore, records: Partial<HostileRecords>, nowSec: number): string[] {
  return overrides(records).map((patch) => {
    store.append(1, nowSec);
    store.override(store.length - 1, patch);
    return store.model(store.length - 1).id;
  });
}
