export type { NormalizeContext, NormalizeResult, Normalizer, RecordKeys } from './records.js';
export { callColumns, genericColumns, numberColumns, voicemailColumns } from './columns.js';
export {
  normalizeV1Call,
  normalizeV1Generic,
  normalizeV1Number,
  normalizeV2Call,
  normalizeV2Voicemail,
  v1CallKeys,
  v1GenericKeys,
  v1NumberKeys,
  v2CallKeys,
  v2VoicemailKeys,
} from './records.js';
export { normalizePage } from './page.js';
export { INEXACT_NUMBER_KEY, inexactNumberText, isJsonObject, isoSeconds, parseDuration, parseId, parsePhone, parseV2Timestamp } from './primitives.js';
export { canonicalJson } from './canonical-json.js';
export { zoneOffsetMs } from './zone-offset.js';
export { declaredValue, withDeclaredColumns, type DeclaredColumn } from './declared-columns.js';
