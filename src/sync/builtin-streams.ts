import {
  callColumns,
  normalizeV1Call,
  normalizeV1Number,
  normalizeV2Call,
  normalizeV2Voicemail,
  numberColumns,
  voicemailColumns,
} from '../normalize/index.js';
import type { StreamDescriptor } from './stream-descriptor.js';

const calls: StreamDescriptor = {
  name: 'calls',
  api: 'v1',
  path: '/calls',
  recordsKey: 'calls',
  paging: 'cursor',
  source: 'v1',
  table: { stream: 'calls', table: 'calls', columns: callColumns },
  normalize: normalizeV1Call,
};

const voicemails: StreamDescriptor = {
  name: 'voicemails',
  api: 'v2',
  path: '/api/all/voicemails',
  recordsKey: 'voicemail',
  paging: 'v2-newest-first',
  source: 'v2',
  table: { stream: 'voicemails', table: 'voicemails', columns: voicemailColumns },
  normalize: normalizeV2Voicemail,
};

const numbers: StreamDescriptor = {
  name: 'numbers',
  api: 'v1',
  path: '/numbers',
  recordsKey: 'numbers',
  paging: 'none',
  source: 'v1',
  table: { stream: 'numbers', table: 'numbers', columns: numberColumns },
  normalize: normalizeV1Number,
};

/** For businesses without a v1 key: v2 calls land in the same `calls` table, marked `source = 'v2'`. */
const v2Calls: StreamDescriptor = {
  name: 'v2_calls',
  api: 'v2',
  path: '/api/all/calls',
  recordsKey: 'calls',
  paging: 'v2-newest-first',
  source: 'v2',
  table: { stream: 'v2_calls', table: 'calls', columns: callColumns },
  normalize: normalizeV2Call,
};

export const builtinStreams: ReadonlyMap<string, StreamDescriptor> = new Map(
  [calls, voicemails, numbers, v2Calls].map((stream) => [stream.name, stream]),
);
