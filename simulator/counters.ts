import type { RecordingCounters } from './recording-types.js';
import type { BusinessCounters, FaultCounters, SimulatorCounters } from './types.js';

const MAX_WINDOWS = 10_000;

type FaultKind = keyof FaultCounters;
type RequestKind = 'apiKeyRequests' | 'sessionRequests' | 'v2Requests';

function emptyFaults(): FaultCounters {
  return {
    errors: 0,
    slow: 0,
    truncated: 0,
    resets: 0,
    expiredCursors: 0,
    storm429: 0,
    badJson: 0,
    unavailable: 0,
    hugeBodies: 0,
    hugeBodyBytesWritten: 0,
    trickled: 0,
    echoedCredentials: 0,
  };
}

function emptyRecordings(): RecordingCounters {
  return { requests: 0, byStatus: {}, bytesServed: 0, expired: 0, faults: 0, foreignRequests: 0, withCredentials: 0 };
}

type RecordingCount = Exclude<keyof RecordingCounters, 'byStatus'>;

function emptyBusiness(): BusinessCounters {
  return { apiKeyRequests: 0, sessionRequests: 0, v2Requests: 0, rateLimited: 0, windows: [], maxWindowCount: 0 };
}

/** What the simulator saw and did, for tests to assert on. */
export class CounterBook {
  readonly #names: readonly string[];
  #businesses = new Map<string, BusinessCounters>();
  #byStatus = new Map<number, number>();
  #unauthenticated = 0;
  #faults = emptyFaults();
  #recordings = emptyRecordings();

  constructor(businessNames: readonly string[]) {
    this.#names = businessNames;
    this.reset();
  }

  request(business: string, kind: RequestKind): void {
    this.#business(business)[kind]++;
  }

  unauthenticated(): void {
    this.#unauthenticated++;
  }

  status(status: number): void {
    this.#byStatus.set(status, (this.#byStatus.get(status) ?? 0) + 1);
  }

  fault(kind: FaultKind, count = 1): void {
    this.#faults[kind] += count;
  }

  /** The recordings host's counts; `status` counts an answer by its status. */
  recording(kind: RecordingCount, count = 1): void {
    this.#recordings[kind] += count;
  }

  recordingStatus(status: number): void {
    const byStatus = this.#recordings.byStatus;
    byStatus[String(status)] = (byStatus[String(status)] ?? 0) + 1;
  }

  rateLimited(business: string): void {
    this.#business(business).rateLimited++;
  }

  /** One request hit the bucket of `business` in the window starting at `startMs`. */
  window(business: string, startMs: number, admitted: boolean): void {
    const b = this.#business(business);
    let w = b.windows[b.windows.length - 1];
    if (w?.startMs !== startMs) {
      w = { startMs, count: 0, admitted: 0 };
      b.windows.push(w);
      if (b.windows.length > MAX_WINDOWS) b.windows.shift();
    }
    w.count++;
    if (admitted) w.admitted++;
    b.maxWindowCount = Math.max(b.maxWindowCount, w.count);
  }

  /** A deep copy: later requests do not change it. */
  snapshot(): SimulatorCounters {
    const businesses: Record<string, BusinessCounters> = {};
    for (const [name, b] of this.#businesses) {
      businesses[name] = { ...b, windows: b.windows.map((w) => ({ ...w })) };
    }
    const byStatus: Record<string, number> = {};
    for (const [status, n] of this.#byStatus) byStatus[String(status)] = n;
    return {
      businesses,
      byStatus,
      unauthenticated: this.#unauthenticated,
      faults: { ...this.#faults },
      recordings: { ...this.#recordings, byStatus: { ...this.#recordings.byStatus } },
    };
  }

  reset(): void {
    this.#businesses = new Map(this.#names.map((n) => [n, emptyBusiness()]));
    this.#byStatus = new Map();
    this.#unauthenticated = 0;
    this.#faults = emptyFaults();
    this.#recordings = emptyRecordings();
  }

  #business(name: string): BusinessCounters {
    let b = this.#businesses.get(name);
    if (b === undefined) {
      b = emptyBusiness();
      this.#businesses.set(name, b);
    }
    return b;
  }
}
