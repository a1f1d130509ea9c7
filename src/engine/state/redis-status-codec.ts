import { isStreamState, lagSecondsAt, type BudgetView, type StreamGauges } from './stream-status.js';
import { COUNTERS, type StatusPatch, type StoredStatus } from './status-patch.js';

/**
 * How a stream's status is laid out in its Redis hash: one field per value, counters are integers
 * so HINCRBY can add to them, `budget` is JSON. A cleared (null) value is an empty field, set in
 * the same HSET as the rest (every run's end clears `lastError` and `warning`: an HDEL each would
 * cost the idle poll a command); an absent field (older versions, or never set) reads as null too.
 */
const NULLABLE_TEXT = ['lastSuccessAt', 'lastRunAt', 'lastError', 'warning'] as const;

/** The HSET fields and HINCRBY amounts that together apply `patch`. */
export interface HashChanges {
  readonly set: Record<string, string>;
  readonly add: Record<string, number>;
}

const CLEARED = '';

export function encodePatch(business: string, stream: string, patch: StatusPatch, updatedAt: string): HashChanges {
  const set: Record<string, string> = { business, stream, updatedAt };
  const add: Record<string, number> = {};
  if (patch.state !== undefined) set.state = patch.state;
  for (const field of NULLABLE_TEXT) {
    const value = patch[field];
    if (value !== undefined) set[field] = value ?? CLEARED;
  }
  if (patch.difference !== undefined) set.difference = patch.difference === null ? CLEARED : String(patch.difference);
  if (patch.budget !== undefined) set.budget = patch.budget === null ? CLEARED : JSON.stringify(patch.budget);
  for (const counter of COUNTERS) {
    const value = patch[counter];
    if (value !== undefined) set[counter] = String(value);
    const added = patch.increment?.[counter];
    if (added !== undefined && added !== 0) add[counter] = added;
  }
  return { set, add };
}

/** A field's value, or null when it is absent or cleared. */
function text(value: string | undefined): string | null {
  return value === undefined || value === CLEARED ? null : value;
}

function decodeBudget(text: string | undefined): BudgetView | null {
  if (text === undefined || text === CLEARED) return null;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null) return null;
    const { limit, usedThisWindow, resetAt } = value as Record<string, unknown>;
    if (typeof limit !== 'number' || typeof usedThisWindow !== 'number' || typeof resetAt !== 'string') return null;
    return { limit, usedThisWindow, resetAt };
  } catch {
    return null;
  }
}

function integer(text: string | undefined): number {
  const value = Number(text ?? 0);
  return Number.isSafeInteger(value) ? value : 0;
}

/** The stored state; `idle` for a missing or unknown one (a newer version's). */
function state(value: string | undefined): StoredStatus['state'] {
  return isStreamState(value) ? value : 'idle';
}

/** The last reconciliation's difference, or null when cleared or never set. */
function difference(value: string | undefined): number | null {
  return text(value) === null ? null : integer(value);
}

/** The status in a hash, or undefined for a missing hash. Tolerates fields written by other versions. */
export function decodeStatus(hash: Record<string, string>): StoredStatus | undefined {
  const { business, stream, updatedAt } = hash;
  if (business === undefined || stream === undefined || updatedAt === undefined) return undefined;
  return {
    business,
    stream,
    state: state(hash.state),
    lastSuccessAt: text(hash.lastSuccessAt),
    lastRunAt: text(hash.lastRunAt),
    recordsSynced: integer(hash.recordsSynced),
    pages: integer(hash.pages),
    deadLetters: integer(hash.deadLetters),
    lastError: text(hash.lastError),
    warning: text(hash.warning),
    difference: difference(hash.difference),
    budget: decodeBudget(hash.budget),
    updatedAt,
  };
}

/** The fields {@link decodeGauges} reads, in the order it takes their values. */
export const GAUGE_FIELDS = ['updatedAt', 'state', 'lastSuccessAt', 'difference'] as const;

/**
 * A stream's gauges from the values of {@link GAUGE_FIELDS} in its hash, at `nowMs`; undefined for
 * a missing hash (no `updatedAt`), as {@link decodeStatus}.
 */
export function decodeGauges(business: string, stream: string, values: readonly (string | null)[], nowMs: number): StreamGauges | undefined {
  const [updatedAt, stateText, lastSuccessAt, differenceText] = values.map((value) => value ?? undefined);
  if (updatedAt === undefined) return undefined;
  return { business, stream, state: state(stateText), lagSeconds: lagSecondsAt(text(lastSuccessAt), nowMs), difference: difference(differenceText) };
}
