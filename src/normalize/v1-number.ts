import { parsePhone } from './phone.js';
import { normalizeRecord, type RecordRules } from './record.js';
import type { Normalizer } from './result.js';

const rules: RecordRules = {
  idSources: ['id', 'uuid', 'number_id'],
  fields: [{ column: 'number', sources: ['number', 'phone_number', 'e164', 'tracking_number'], parse: parsePhone }],
};

/** A v1 tracked number → `numberColumns`; its other fields stay in `raw`. */
export const normalizeV1Number: Normalizer = (raw, context) => normalizeRecord(raw, context, rules);
