/** The simulator's canonical records. Rendering (v1 / v2) and truth both derive from these. */

export interface NumberModel {
  id: string;
  number: string;
  name: string;
  type: 'local' | 'toll_free';
  /** Folder of this number's recordings in relative recording paths. */
  folder: string;
  createdAtSec: number;
}

export interface CallModel {
  index: number;
  /** Time-ordered UUID (version 7 layout): sorting by (created_at, id) equals arrival order. */
  id: string;
  v2Uuid: number;
  trackingNumber: NumberModel;
  direction: 'inbound' | 'outbound';
  status: 'completed' | 'missed' | 'busy' | 'no-answer';
  durationSec: number;
  toNumber: string;
  fromNumber: string;
  /** Relative path (`/<user-folder>/recordings/<folder>/<id>.wav`) or null without a recording. */
  recordingPath: string | null;
  /** Empty when there is no recording or the transcription failed. */
  transcription: string;
  createdAtSec: number;
  updatedAtSec: number;
  /** A v1 `custom_data` field of this many nested arrays: a record hostile to the sink. */
  customDataDepth?: number;
}

export interface VoicemailModel {
  index: number;
  uuid: number;
  trackingNumber: NumberModel;
  toNumber: string;
  fromNumber: string;
  transcription: string;
  summary: string | null;
  recordingPath: string;
  apiRecordingUrl: string;
  durationSec: number;
  createdAtSec: number;
}

export interface SmsModel {
  id: string;
  trackingNumber: NumberModel;
  direction: 'inbound' | 'outbound';
  toNumber: string;
  fromNumber: string;
  body: string;
  createdAtSec: number;
}

/** The fixed "now" of generated history (2025-06-01T00:00:00Z); live arrivals use the real clock. */
export const HISTORY_END_SEC = Date.UTC(2025, 5, 1) / 1000;
/** History spans the 90 days before `HISTORY_END_SEC`. */
export const HISTORY_SPAN_SEC = 90 * 86400;

/**
 * Non-decreasing creation times spread over the history window without sorting:
 * slot i covers [i, i+1) of n equal slices, so order holds by construction.
 */
export function historyTime(index: number, count: number, jitter: number): number {
  const begin = HISTORY_END_SEC - HISTORY_SPAN_SEC;
  return Math.floor(begin + ((index + jitter) * HISTORY_SPAN_SEC) / Math.max(count, 1));
}
