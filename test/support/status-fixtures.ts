import { emptyStatus, type StreamStatus } from '../../src/engine/state/index.js';

/** The moment status fixtures are read at. */
export const NOW = '2024-05-01T12:00:00.000Z';

/**
 * A stream's status as the store answers one nobody has reported on: acme's calls, idle, never
 * run, every counter zero, updated at {@link NOW}; `overrides` set what a test is about.
 */
export function streamStatus(overrides: Partial<StreamStatus> = {}): StreamStatus {
  return { ...emptyStatus('acme', 'calls', NOW), lagSeconds: null, ...overrides };
}

/** The lag and the last success that agree with it at {@link NOW} (`null`: never synced). */
export function lagged(lagSeconds: number | null): Pick<StreamStatus, 'lagSeconds' | 'lastSuccessAt'> {
  return { lagSeconds, lastSuccessAt: lagSeconds === null ? null : new Date(Date.parse(NOW) - lagSeconds * 1000).toISOString() };
}

/** The counters and budget of a stream that has done some work, for renderings that show them. */
export const BUSY = {
  recordsSynced: 1_234_567,
  pages: 10,
  deadLetters: 3,
  budget: { limit: 60, usedThisWindow: 12, resetAt: '2024-05-01T12:01:00.000Z' },
} as const satisfies Partial<StreamStatus>;
