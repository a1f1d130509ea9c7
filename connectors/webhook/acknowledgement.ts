import { jsonValue, parseJson } from '../../src/http/index.js';

/** How many of the POSTed records the receiver stored anew and how many it already had. */
export interface Acknowledgement {
  readonly written: number;
  readonly unchanged: number;
}

/**
 * Reads what a 2xx says about the batch. Receivers owe nothing beyond the 2xx; two optional,
 * documented signals make the sink's counts exact: an `Idempotent-Replayed: true` header (the
 * batch's key was seen before, nothing stored) and a JSON body `{ "written": n, "unchanged": m }`.
 * Counts that do not fit the batch are ignored rather than trusted.
 */
export function readAcknowledgement(records: number, replayed: string | undefined, body: string | undefined): Acknowledgement {
  if (replayed?.trim().toLowerCase() === 'true') return { written: 0, unchanged: records };
  const counts = parseCounts(body);
  if (counts !== undefined && counts.written + counts.unchanged <= records) return counts;
  return { written: records, unchanged: 0 };
}

function parseCounts(body: string | undefined): Acknowledgement | undefined {
  if (body === undefined) return undefined;
  const parsed = jsonValue(parseJson(body));
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { written, unchanged } = parsed as { written?: unknown; unchanged?: unknown };
  if (!isCount(written) || !isCount(unchanged)) return undefined;
  return { written, unchanged };
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}
