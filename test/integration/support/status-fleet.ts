import type { StatusPatch, StatusStore, StreamState } from '../../../src/engine/state/index.js';
import { chunks } from '../../../src/base/chunks.js';

/** What one seeded stream needs a person for, if anything, and how far behind it is. */
export interface SeededStream {
  readonly business: string;
  readonly stream: string;
  readonly state: StreamState;
  /** Seconds since its last success at seeding time; null when it never succeeded. */
  readonly lagSeconds: number | null;
}

export const FLEET_STREAMS = ['calls', 'numbers', 'voicemails'] as const;

export function fleetName(index: number): string {
  return `client-${String(index).padStart(5, '0')}`;
}

/**
 * The streams of a deployment of `count` businesses × 3 streams, nearly all healthy (a run a
 * minute ago), with problems spread over it at known lags: failed, stopped (auth failed), drift,
 * gap warning, budget waits that last (waiting long) and short ones, runs under way.
 */
export function fleetStreams(count: number): SeededStream[] {
  const streams: SeededStream[] = [];
  for (let i = 0; i < count; i += 1) {
    const business = fleetName(i);
    FLEET_STREAMS.forEach((stream, s) => {
      const n = i * 3 + s;
      let state: StreamState = 'idle';
      let lagSeconds: number | null = 30 + (n % 50);
      if (n % 997 === 11) [state, lagSeconds] = ['failed', 120 + (n % 3000)];
      else if (n % 2503 === 7 && s === 0) [state, lagSeconds] = ['auth_failed', null];
      else if (n % 3331 === 5) [state, lagSeconds] = ['drift', 60];
      else if (n % 1999 === 3) [state, lagSeconds] = ['gap_warning', 90 + (n % 200)];
      else if (n % 4001 === 9) [state, lagSeconds] = ['waiting_for_budget', 3600 + n];
      else if (n % 211 === 2) [state, lagSeconds] = ['waiting_for_budget', 45];
      else if (n % 97 === 1) state = 'syncing';
      streams.push({ business, stream, state, lagSeconds });
    });
  }
  return streams;
}

function patchOf(seeded: SeededStream, nowMs: number): StatusPatch {
  const lastSuccessAt = seeded.lagSeconds === null ? null : new Date(nowMs - seeded.lagSeconds * 1000).toISOString();
  const base: StatusPatch = {
    state: seeded.state,
    lastSuccessAt,
    lastRunAt: new Date(nowMs - 5_000).toISOString(),
    increment: { recordsSynced: 1000 + ((seeded.business.length * 37) % 900), pages: 3 },
    budget: { limit: 60, usedThisWindow: 3, resetAt: new Date(nowMs + 40_000).toISOString() },
  };
  switch (seeded.state) {
    case 'failed':
      return { ...base, lastError: `server: GET /api/v1/${seeded.stream}: HTTP 500 Internal Server Error (attempt 8 of 8)` };
    case 'auth_failed':
      return { ...base, lastError: `auth: GET /api/v1/${seeded.stream}: HTTP 401: Invalid API key` };
    case 'drift':
      return { ...base, warning: 'drift: upstream has 1,204, the sink 1,201 (3 missing)', difference: 3 };
    case 'gap_warning':
      return { ...base, warning: 'possible gap: 1,000 records share one created_at at the high-water mark; widened to the v2 maximum' };
    default:
      return base;
  }
}

/**
 * Writes the fleet into a real status store (and stops the businesses whose key failed), a batch of
 * streams per `writeMany`: one update (a MULTI, then the status read back) per stream cost 30,000
 * round trips and some 6 s of CPU at 10,000 businesses.
 */
export async function seedFleet(store: StatusStore, streams: readonly SeededStream[], nowMs: number): Promise<void> {
  for (const batch of chunks(streams, 1_000)) {
    await store.writeMany(batch.map((seeded) => ({ business: seeded.business, stream: seeded.stream, patch: patchOf(seeded, nowMs) })));
  }
  const stopped = streams.filter((seeded) => seeded.state === 'auth_failed');
  await Promise.all(stopped.map((seeded) => store.markBusinessFailed(seeded.business, 'auth: GET /api/v1/calls: HTTP 401: Invalid API key')));
}
