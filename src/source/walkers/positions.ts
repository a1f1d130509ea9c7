import { z } from 'zod';
import type { JsonObject } from '../../sink/sink.js';

/**
 * The stored position of every walker, as zod schemas. A stored position is read through
 * `readPosition`: one that does not parse stops the stream with an error naming it, because
 * silently starting over would either re-sync everything or, worse, skip records.
 */

const count = z.int().nonnegative();

/** `[offset of a page's first record, its created_at]`, oldest first (see `withRevisit` in `list-walker.ts`). */
const revisitMark = z.tuple([count, z.string()]);

/** What the revisit of recent records keeps beside an oldest-first walk's own position. */
const revisitFields = z.object({
  marks: z.array(revisitMark).optional(),
  /** Epoch ms of the last completed revisit. */
  revisitedAt: z.number().optional(),
});

/** Which end of a v1 list comes first; the spec does not say (v2 lists are newest first). */
const listOrder = z.enum(['oldest_first', 'newest_first']);

/** The head of a list as a walk saw it: its newest `created_at` and the ids at the top. */
const headMark = z.object({
  createdAt: z.string().nullable(),
  ids: z.array(z.string()),
  /** Ids at the head dated beyond the allowed clock skew: left out of the mark, warned about once. */
  future: z.array(z.string()).optional(),
});

/**
 * A newest-first walk from the head in progress: `top` is the head it started from (stored as
 * the new head once the walk is done), `stopAt` the head of the walk before it, where it stops.
 * `revisitFrom` lowers the stop to the start of the revisit window when a revisit is due.
 */
const descent = z.object({ top: headMark.nullable(), stopAt: headMark.nullable(), revisitFrom: z.string().optional() });

const listFields = revisitFields.extend({
  /** Detected (with `order: auto`) or configured; absent while the records have not shown it. */
  order: listOrder.optional(),
  /** Newest first: what completed walks stored at the head. Order unknown: the head last seen. */
  head: headMark.optional(),
  descent: descent.optional(),
  /**
   * The page size the server capped `limit`/`per_page` at, twice in a row. Page walks resuming
   * past page 1 ask for it; every other walk asks the configured size again and keeps this only
   * while the server still caps (see `listPages`).
   */
  pageCap: z.int().positive().optional(),
});

/**
 * Where a v1 list walk stands. Oldest first, `cursor`/`offset` are the end of what is stored
 * (`offset` counts records consumed, the fallback when a cursor is rejected); newest first,
 * they are the place of the walk in progress.
 */
const offsetPosition = listFields.extend({ mode: z.literal('offset'), offset: count });
const cursorPosition = listFields.extend({ mode: z.literal('cursor'), cursor: z.string().min(1), offset: count });

export const listPosition = z.discriminatedUnion('mode', [cursorPosition, offsetPosition]);

/** v2 walks: the newest `created_at` stored, the ids stored at exactly that second, the last `limit`. */
export const highWaterPosition = z.object({
  mode: z.literal('high-water'),
  highWater: z.string().nullable(),
  idsAtHighWater: z.array(z.string()),
  limit: z.int().positive(),
  /** The most records the server was seen to return whatever `limit` asked (learned, reported). */
  serverCap: z.int().positive().optional(),
  /** Ids of records dated beyond the allowed clock skew: stored, warned about once, never the mark. */
  future: z.array(z.string()).optional(),
});

export type ListPosition = z.infer<typeof listPosition>;
export type ListOrder = z.infer<typeof listOrder>;
export type HeadMark = z.infer<typeof headMark>;
export type Descent = z.infer<typeof descent>;
export type HighWaterPosition = z.infer<typeof highWaterPosition>;

/** A stored position that does not match its walker's schema; the stream stops with this message. */
class StoredPositionError extends Error {
  override readonly name = 'StoredPositionError';
}

/**
 * The stored position parsed with its walker's schema; undefined when nothing is stored yet
 * (an empty object is what a cut-off first page leaves behind).
 */
export function readPosition<T>(schema: z.ZodType<T>, position: JsonObject | undefined, stream: string): T | undefined {
  if (position === undefined || Object.keys(position).length === 0) return undefined;
  const result = schema.safeParse(position);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(position)'}: ${issue.message}`).join('; ');
  const shown = JSON.stringify(position);
  throw new StoredPositionError(
    `stream "${stream}": stored position ${shown.length > 160 ? `${shown.slice(0, 160)}…` : shown} is not one this walker wrote (${problems}); ` +
      'fix the sync_state row, or delete it to sync the stream again from the start',
  );
}

/** A position as the engine stores it: plain JSON, fields that are undefined left out. */
export function storable(position: object): JsonObject {
  return JSON.parse(JSON.stringify(position)) as JsonObject;
}

/** What an operator sees of a stored position (`callsync status`): never throws. */
export interface PositionSummary {
  /** v1 lists: the order detected (`order: auto`) or configured; undefined while not known. */
  readonly order?: ListOrder;
  /** v1 lists: a newest-first walk from the head is under way (a cut-off first sync, say). */
  readonly walkInProgress?: boolean;
  /** v1 lists: the page size the server was found to cap pages at. */
  readonly pageCap?: number;
  /** v2 lists: the most records the server returns whatever `limit` asks. */
  readonly serverCap?: number;
}

export function summarizePosition(position: JsonObject | undefined): PositionSummary {
  const list = listPosition.safeParse(position);
  if (list.success) return { order: list.data.order, walkInProgress: list.data.descent !== undefined, pageCap: list.data.pageCap };
  const highWater = highWaterPosition.safeParse(position);
  return highWater.success ? { serverCap: highWater.data.serverCap } : {};
}
