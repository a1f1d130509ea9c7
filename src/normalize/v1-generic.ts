import { normalizeRecord, type RecordRules } from './record.js';
import { parsed, type Normalizer } from './result.js';
import { parseIsoTimestamp } from './timestamp.js';

/**
 * A normalizer for a config-declared v1 list endpoint (SMS, forms, ...): the id from
 * `idField`, `created_at` from `createdAtField` (null when the field is not configured or
 * absent; a present but unparseable value fails the record). Columns: `genericColumns`.
 */
export function normalizeV1Generic(idField: string, createdAtField?: string): Normalizer {
  const rules: RecordRules = {
    idSources: [idField],
    fields: [
      createdAtField === undefined
        ? { column: 'created_at', sources: ['created_at'], parse: () => parsed(null) }
        : { column: 'created_at', sources: [createdAtField], parse: parseIsoTimestamp },
    ],
  };
  return (raw, context) => normalizeRecord(raw, context, rules);
}
