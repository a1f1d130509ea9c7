import type { ColumnValue, Json } from '../sink.js';
import { parseId } from './id.js';
import { jsonType, type NormalizeContext, type NormalizeResult, type Parsed } from './result.js';

/** How one column is read from an upstream record. */
export interface FieldRule {
  readonly column: string;
  /**
   * Upstream field names, canonical first. Later names are aliases seen on other instances;
   * an alias holding an object or array is some other structure and is ignored (it stays in
   * `raw`), while the canonical name is always validated.
   */
  readonly sources: readonly string[];
  readonly parse: (value: unknown, context: NormalizeContext) => Parsed<ColumnValue>;
  /** When true, an absent value (or one parsed to null) fails the record. */
  readonly required?: boolean;
}

export interface RecordRules {
  readonly idSources: readonly string[];
  readonly fields: readonly FieldRule[];
}

function pick(record: { [key: string]: Json }, sources: readonly string[]): { source: string; value: Json | undefined } {
  for (const [index, source] of sources.entries()) {
    if (!Object.hasOwn(record, source)) continue;
    const value = record[source];
    if (value === null || value === undefined) continue;
    if (index > 0 && typeof value === 'object') continue;
    return { source, value };
  }
  return { source: sources[0] ?? '?', value: undefined };
}

/**
 * Applies `rules` to one raw record: the id first, then every field in order; the first
 * problem fails the record with a reason naming the upstream field. Unknown fields are ignored.
 */
export function normalizeRecord(raw: Json, context: NormalizeContext, rules: RecordRules): NormalizeResult {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, reason: `record: expected an object, got ${jsonType(raw)}` };
  }
  const idPick = pick(raw, rules.idSources);
  const id = parseId(idPick.value);
  if (!id.ok) return { ok: false, reason: `${idPick.source}: ${id.problem}` };
  const fields: Record<string, ColumnValue> = {};
  for (const rule of rules.fields) {
    const { source, value } = pick(raw, rule.sources);
    const result = rule.parse(value, context);
    if (!result.ok) return { ok: false, reason: `${source}: ${result.problem}` };
    if (rule.required && result.value === null) return { ok: false, reason: `${source}: missing` };
    fields[rule.column] = result.value;
  }
  return { ok: true, id: id.value, fields };
}
