import { isStreamState, type BudgetView } from './stream-status.js';
import { COUNTERS, type StatusPatch, type StoredStatus } from './status-patch.js';

/**
 * How a stream's status is laid out in its Redis hash: one field per value, a cleared (null) value
 * is an absent field, counters are integers so HINCRBY can add to them, `budget` is JSON.
 */
const NULLABLE_TEXT = ['lastSuccessAt', 'lastRunAt', 'lastError', 'warning'] as const;

/** The HSET fields, HDEL fields and HINCRBY amounts that together apply `patch`. */
export interface HashChanges {
  readonly set: Record<string, string>;
  readonly unset: string[];
  readonly add: Record<string, number>;
}

export function encodePatch(business: string, stream: string, patch: StatusPatch, updatedAt: string): HashChanges {
  const set: Record<string, string> = { business, stream, updatedAt };
  const unset: string[] = [];
  const add: Record<string, number> = {};
  if (patch.state !== undefined) set.state = patch.state;
  for (const field of NULLABLE_TEXT) {
    const value = patch[field];
    if (value === null) unset.push(field);
    else if (value !== undefined) set[field] = value;
  }
  if (patch.difference === null) unset.push('difference');
  else if (patch.difference !== undefined) set.difference = String(patch.difference);
  if (patch.budget === null) unset.push('budget');
  else if (patch.budget !== undefined) set.budget = JSON.stringify(patch.budget);
  for (const counter of COUNTERS) {
    const value = patch[counter];
    if (value !== undefined) set[counter] = String(value);
    const added = patch.increment?.[counter];
    if (added !== undefined && added !== 0) add[counter] = added;
  }
  return { set, unset, add };
}

function decodeBudget(text: string | undefined): BudgetView | null {
  if (text === undefined) return null;
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

/** The status in a hash, or undefined for a missing hash. Tolerates fields written by other versions. */
export function decodeStatus(hash: Record<string, string>): StoredStatus | undefined {
  const { business, stream, updatedAt } = hash;
  if (business === undefined || stream === undefined || updatedAt === undefined) return undefined;
  return {
    business,
    stream,
    state: isStreamState(hash.state) ? hash.state : 'idle',
    lastSuccessAt: hash.lastSuccessAt ?? null,
    lastRunAt: hash.lastRunAt ?? null,
    recordsSynced: integer(hash.recordsSynced),
    pages: integer(hash.pages),
    deadLetters: integer(hash.deadLetters),
    lastError: hash.lastError ?? null,
    warning: hash.warning ?? null,
    difference: hash.difference === undefined ? null : integer(hash.difference),
    budget: decodeBudget(hash.budget),
    updatedAt,
  };
}
