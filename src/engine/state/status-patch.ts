import type { BudgetView, StreamState, StreamStatus } from './stream-status.js';

/** The counters a patch can set or add to. */
export const COUNTERS = ['recordsSynced', 'pages', 'deadLetters'] as const;
type Counter = (typeof COUNTERS)[number];

/**
 * A change to one stream's status. Omitted fields keep their value; `null` clears a field.
 * Counters can be set (`recordsSynced: 1200`, e.g. from the sink's checkpoint) or added to
 * (`increment: { pages: 1 }`); additions from concurrent writers are never lost. When a patch
 * both sets and adds to a counter, the set applies first.
 */
export interface StatusPatch {
  readonly state?: StreamState;
  readonly lastSuccessAt?: string | null;
  readonly lastRunAt?: string | null;
  readonly lastError?: string | null;
  readonly warning?: string | null;
  readonly difference?: number | null;
  readonly budget?: BudgetView | null;
  readonly recordsSynced?: number;
  readonly pages?: number;
  readonly deadLetters?: number;
  readonly increment?: Partial<Record<Counter, number>>;
}

/** The stored part of a status: everything but the lag, which is computed on read. */
export type StoredStatus = Omit<StreamStatus, 'lagSeconds'>;

/** Rejects values a store cannot keep exactly, before anything is written. */
export function validatePatch(patch: StatusPatch): void {
  for (const counter of COUNTERS) {
    const value = patch[counter];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new RangeError(`status ${counter} must be a non-negative integer, got ${String(value)}`);
    }
    const added = patch.increment?.[counter];
    if (added !== undefined && !(Number.isSafeInteger(added) && added >= 0)) {
      throw new RangeError(`status increment of ${counter} must be a non-negative integer, got ${String(added)}`);
    }
  }
  if (patch.difference !== undefined && patch.difference !== null && !Number.isSafeInteger(patch.difference)) {
    throw new RangeError(`status difference must be an integer, got ${String(patch.difference)}`);
  }
  for (const field of ['lastSuccessAt', 'lastRunAt'] as const) {
    const value = patch[field];
    if (typeof value === 'string' && Number.isNaN(Date.parse(value))) {
      throw new RangeError(`status ${field} must be an ISO timestamp, got ${JSON.stringify(value)}`);
    }
  }
}

/** A stream nobody has reported yet: idle, never run, every counter zero. */
export function emptyStatus(business: string, stream: string, updatedAt: string): StoredStatus {
  return {
    business,
    stream,
    state: 'idle',
    lastSuccessAt: null,
    lastRunAt: null,
    recordsSynced: 0,
    pages: 0,
    deadLetters: 0,
    lastError: null,
    warning: null,
    difference: null,
    budget: null,
    updatedAt,
  };
}
