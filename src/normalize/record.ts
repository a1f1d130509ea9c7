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

/** Index in `sources` of the field that holds the value, or -1. Runs ten times a record: no allocation. */
function pick(record: { [key: string]: Json }, sources: readonly string[]): number {
  for (let index = 0; index < sources.length; index++) {
    const source = sources[index] as string;
    if (!Object.hasOwn(record, source)) continue;
    const value = record[source];
    if (value === null || value === undefined) continue;
    if (index > 0 && typeof value === 'object') continue;
    return index;
  }
  return -1;
}

/**
 * Applies `rules` to one raw record: the id first, then every field in order; the first
 * problem fails the record with a reason naming the upstream field. Unknown fields are ignored.
 */
export function normalizeRecord(raw: Json, context: NormalizeContext, rules: RecordRules): NormalizeResult {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return { ok: false, reason: `record: expected an object, got ${jsonType(raw)}` };
  }
  const idAt = pick(raw, rules.idSources);
  const id = parseId(idAt === -1 ? undefined : raw[rules.idSources[idAt] as string]);
  if (!id.ok) return { ok: false, reason: `${sourceName(rules.idSources, idAt)}: ${id.problem}` };
  const fields: Record<string, ColumnValue> = {};
  for (const rule of rules.fields) {
    const at = pick(raw, rule.sources);
    const result = rule.parse(at === -1 ? undefined : raw[rule.sources[at] as string], context);
    if (!result.ok) return { ok: false, reason: `${sourceName(rule.sources, at)}: ${result.problem}` };
    if (rule.required && result.value === null) return { ok: false, reason: `${sourceName(rule.sources, at)}: missing` };
    fields[rule.column] = result.value;
  }
  return { ok: true, id: id.value, fields };
}

/** The field a reason names: the one picked, else the canonical name. */
function sourceName(sources: readonly string[], at: number): string {
  return sources[at === -1 ? 0 : at] ?? '?';
}
