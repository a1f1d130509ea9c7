/** The upstream simulator: a faithful fake of the call-tracking service over real HTTP. */
export { startSimulator } from './start.js';
export { KEY_PREFIX } from './api-keys.js';
export { LONE_SURROGATE_TEXT } from './hostile-records.js';
export { recordingChunks, recordingDigest, recordingIdOf, recordingSize } from './recording-bytes.js';
export type { RecordingSize } from './recording-bytes.js';
export type { BrokenPaging, Hostile, OutboundToNumber, RateWindow, Simulator, SimulatorOptions, Truth, TruthRecord } from './types.js';
export type { RecordingCounters, RecordingFault, RecordingFaultRule, Recordings, RecordingTruth } from './recording-types.js';
