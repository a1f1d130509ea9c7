import type { RecordingSize } from './recording-bytes.js';
/** Public contract of the simulator's recordings host (issue 33): settings, faults, counters, truth. */

/**
 * What one answer of the recordings host does instead of serving the audio (issue 33). Each is an
 * input an archive must survive or refuse.
 */
export type RecordingFault =
  /** This status (5xx, 429…) with `Retry-After` (seconds or an HTTP date; default '1') and an XML error body. */
  | { kind: 'status'; status: number; retryAfter?: string }
  /** The audio, sent at this many bytes per second. */
  | { kind: 'slow'; bytesPerSecond: number }
  /** Correct headers, `afterBytes` bytes of the body, then a connection reset. */
  | { kind: 'reset'; afterBytes: number }
  /** A recording of `declaredBytes` (header and `Content-Length` say so), generated as it streams, never held. */
  | { kind: 'oversized'; declaredBytes: number }
  /** A 200 of audio without `Content-Length` that never ends (until the client hangs up). */
  | { kind: 'endless' }
  /** A 200 whose body is an HTML error page (`Content-Type: text/html`), not audio. */
  | { kind: 'html' }
  /**
   * A 302 to the same recording elsewhere: `media` the media link itself, `own-port` the media path
   * on the second server (`recordingsHostUrl`, another port), `foreign` the same on
   * `foreignHostUrl` (another name: a host a client should refuse).
   */
  | { kind: 'redirect'; to: 'media' | 'own-port' | 'foreign' };

/** When a {@link RecordingFault} applies. Rules are tried in order; the first that matches wins. */
export interface RecordingFaultRule {
  fault: RecordingFault;
  /** Records (call ids, voicemail uuids as in the truth) or recording ids it applies to. @defaultValue every recording */
  records?: string[];
  /**
   * Attempts it applies to, 1-based, counted per recording over every request for it (ranges and
   * HEAD included), from when `faults` was last set. @defaultValue every attempt
   */
  attempts?: number[];
}

/** The recordings host: what it serves and how it misbehaves. Change it live with `setRecordings`. */
export interface Recordings {
  /** Bytes of each recording, header included; a range is drawn per recording from its id. @defaultValue { min: 4096, max: 65536 } */
  size: RecordingSize;
  /**
   * A link answers 403 (AccessDenied, as a signed-link host says it) once its record is older than
   * this, by the simulator's clock from the record's `created_at`: the link is as old as the
   * record, whenever it was handed out. 0: links never expire. @defaultValue 0
   */
  linkTtlMs: number;
  /**
   * Budget of recording requests: `false` none; a window per business of its own; `'api'` takes
   * from the business's API bucket (the spec does not say which). A refused request is a 429 with
   * `Retry-After`. @defaultValue false
   */
  rateLimit: { limit: number; windowMs: number } | 'api' | false;
  /** Provider links (`voicemail_api_recording_url`) answer 302 to the media link instead of the audio. @defaultValue false */
  providerRedirect: boolean;
  /** Faults, first match wins. Setting them restarts the attempt counts. @defaultValue [] */
  faults: RecordingFaultRule[];
}

/** What the simulator knows of one recording link: the bytes it serves and how it answers now. */
export interface RecordingTruth {
  business: string;
  /** Call id or voicemail uuid, as in the truth. */
  recordId: string;
  recordingId: string;
  /** 200 while served, 403 once expired, 404 once deleted (with the record or alone). */
  status: 200 | 403 | 404;
  /** The recording's length and SHA-256 (hex) when served whole without faults. */
  bytes: number;
  sha256: string;
}

/** What the recordings host saw and did. */
export interface RecordingCounters {
  /** Requests for anything on the recordings host (media, provider and foreign names). */
  requests: number;
  /** Answers by status. */
  byStatus: Record<string, number>;
  /** Body bytes handed to sockets (audio and faulty bodies); a client that hangs up stops it. */
  bytesServed: number;
  /** 403s for expired links. */
  expired: number;
  /** Answers replaced by a {@link RecordingFault}. */
  faults: number;
  /** Requests that reached the host by its foreign name (after a redirect a client should have refused). */
  foreignRequests: number;
  /** Requests carrying an `Authorization` header (recording links need none: a leaked credential). */
  withCredentials: number;
}
