import type { BusinessData } from './business.js';
import { recordingDigest, recordingSize } from './recording-bytes.js';
import type { RecordingTarget } from './recording-directory.js';
import { RecordingDirectory } from './recording-directory.js';
import { FixedWindowLimiter } from './rate-limiter.js';
import type { RecordingFault, Recordings, RecordingTruth } from './recording-types.js';

/** Sizes of 4–64 KiB: enough to cross a few reads, small enough for a thousand per test. */
const DEFAULT_RECORDINGS: Recordings = { size: { min: 4096, max: 65_536 }, linkTtlMs: 0, rateLimit: false, providerRedirect: false, faults: [] };

/** Where the recordings host's names point, known once both servers listen. */
export interface RecordingUrls {
  /** Prefix of the media links (`recordingsBaseUrl`). */
  media: string;
  /** The second server (`recordingsHostUrl`). */
  provider: string;
  /** The second server under another name (`foreignHostUrl`). */
  foreign: string;
  /** The host name a request's `Host` header carries when it came by the foreign name. */
  foreignHostName: string;
}

/** The recordings host's settings and state: which link is which record, what it answers, its budget. */
export class RecordingHost {
  #settings: Recordings;
  readonly directory: RecordingDirectory;
  /** A budget of its own, per business (`rateLimit` as a window); `'api'` uses the API's limiter instead. */
  readonly limiter: FixedWindowLimiter;
  readonly #attempts = new Map<string, number>();
  urls: RecordingUrls = { media: '', provider: '', foreign: '', foreignHostName: '' };

  constructor(businesses: readonly BusinessData[], recordings: Partial<Recordings> | undefined) {
    this.#settings = { ...DEFAULT_RECORDINGS, ...recordings };
    this.directory = new RecordingDirectory(businesses);
    this.limiter = new FixedWindowLimiter(false);
    this.#applyLimit();
  }

  get settings(): Recordings {
    return this.#settings;
  }

  set(recordings: Partial<Recordings>): void {
    this.#settings = { ...this.#settings, ...recordings };
    if (recordings.faults !== undefined) this.#attempts.clear();
    if (recordings.rateLimit !== undefined) this.#applyLimit();
  }

  /** Counts one more request for this recording; returns its 1-based attempt number. */
  attempt(recordingId: string): number {
    const n = (this.#attempts.get(recordingId) ?? 0) + 1;
    this.#attempts.set(recordingId, n);
    return n;
  }

  /** The first fault rule that applies to this recording at this attempt. */
  fault(target: RecordingTarget, attempt: number): RecordingFault | undefined {
    for (const rule of this.#settings.faults) {
      const records = rule.records;
      if (records !== undefined && !records.includes(target.recordId) && !records.includes(target.recordingId)) continue;
      if (rule.attempts !== undefined && !rule.attempts.includes(attempt)) continue;
      return rule.fault;
    }
    return undefined;
  }

  /** How the link answers now, faults aside: 404 once deleted, 403 once older than `linkTtlMs`, else 200. */
  status(target: RecordingTarget, nowMs: number): 200 | 403 | 404 {
    if (target.recordDeleted || this.directory.isDeleted(target.recordingId)) return 404;
    const ttl = this.#settings.linkTtlMs;
    return ttl > 0 && nowMs - target.createdAtSec * 1000 > ttl ? 403 : 200;
  }

  /** Epoch ms when the link stops working, or undefined when links never expire. */
  expiresAtMs(target: RecordingTarget): number | undefined {
    const ttl = this.#settings.linkTtlMs;
    return ttl > 0 ? target.createdAtSec * 1000 + ttl : undefined;
  }

  size(recordingId: string): number {
    return recordingSize(recordingId, this.#settings.size);
  }

  truth(target: RecordingTarget, nowMs: number): RecordingTruth {
    return {
      business: target.business.name,
      recordId: target.recordId,
      recordingId: target.recordingId,
      status: this.status(target, nowMs),
      ...recordingDigest(target.recordingId, this.size(target.recordingId)),
    };
  }

  #applyLimit(): void {
    const limit = this.#settings.rateLimit;
    this.limiter.set(typeof limit === 'object' ? limit : false);
  }
}
