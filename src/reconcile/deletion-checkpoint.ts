import { z } from 'zod';
import type { JsonObject } from '../sink.js';
import { NO_DELETIONS, type DeletionState } from './deletion-guard.js';

/**
 * The deletion guard's memory as a sink checkpoint (`{stream}:deletions`, beside the repair
 * walk's `{stream}:repair`). Candidates are grouped by the time a walk first missed them: one
 * walk adds one group, so the ids are stored once and the times once per walk.
 */
const deletionsPosition = z.object({
  groups: z.array(z.object({ since: z.number(), ids: z.array(z.string()) })),
  held: z.object({ count: z.int().nonnegative(), share: z.number().min(0) }).nullable(),
});

/** The checkpoint's stream name for a stream's deletion guard. */
export const deletionsStream = (stream: string): string => `${stream}:deletions`;

export function encodeDeletions(state: DeletionState): JsonObject {
  const groups = new Map<number, string[]>();
  for (const [id, since] of state.candidates) {
    const group = groups.get(since);
    if (group === undefined) groups.set(since, [id]);
    else group.push(id);
  }
  return {
    groups: [...groups].map(([since, ids]) => ({ since, ids })),
    held: state.held === null ? null : { count: state.held.count, share: state.held.share },
  };
}

/**
 * Reads a stored position; one that does not parse names the checkpoint, since guessing would
 * either forget candidates (delaying a deletion) or invent them.
 */
export function decodeDeletions(position: JsonObject | undefined, where: string): DeletionState {
  if (position === undefined) return NO_DELETIONS;
  const parsed = deletionsPosition.safeParse(position);
  if (!parsed.success) {
    throw new Error(`sync_state row ${where} does not parse (${parsed.error.issues[0]?.message ?? 'unknown shape'}); fix: delete that row, and the next whole walk starts the deletion candidates afresh`);
  }
  const candidates = new Map<string, number>();
  for (const group of parsed.data.groups) for (const id of group.ids) candidates.set(id, group.since);
  return { candidates, held: parsed.data.held };
}
