import {
  callColumns,
  normalizeV1Call,
  normalizeV1Number,
  normalizeV2Call,
  normalizeV2Voicemail,
  numberColumns,
  v1CallKeys,
  v1NumberKeys,
  v2CallKeys,
  v2VoicemailKeys,
  voicemailColumns,
} from '../../normalize/index.js';
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
  keys: v1CallKeys,
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
  keys: v2VoicemailKeys,
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
  keys: v1NumberKeys,
  syncFirst: true,
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
  keys: v2CallKeys,
};

/** The one catalogue of built-in streams; the config's name lists below are derived from it. */
export const builtinStreams: ReadonlyMap<string, StreamDescriptor> = new Map([calls, voicemails, numbers, v2Calls].map((stream) => [stream.name, stream]));

/** Streams callsync knows without config. */
export const BUILT_IN_STREAMS: readonly string[] = [...builtinStreams.keys()];
/** Streams read from the v2 host with the business's `v2Token`. */
export const V2_STREAMS: readonly string[] = [...builtinStreams.values()].filter((stream) => stream.api === 'v2').map((stream) => stream.name);
/** @defaultValue for `businesses[].streams`: everything a business with a v1 key and a v2 token has. */
export const DEFAULT_STREAMS: readonly string[] = [calls.name, voicemails.name, numbers.name];
