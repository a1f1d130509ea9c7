import { expect } from 'vitest';
import type { MirrorDiff } from '../../integration/support/sqlite-mirror.js';

/** The end-of-scenario counts for the table, from per-table diffs against the truth. */
export interface MirrorFigures {
  readonly expected: number;
  readonly found: number;
  readonly missing: number;
  /** Rows beyond one per expected record: unexpected ids and ids stored twice. */
  readonly duplicated: number;
  /** Rows whose fields or `raw` differ from the truth. */
  readonly different: number;
}

export interface CountedDiff {
  readonly diff: MirrorDiff;
  /** Truth records of this table. */
  readonly expected: number;
  /** Rows stored (count, not distinct ids). */
  readonly stored: number;
  readonly distinct: number;
}

export function figuresOf(diffs: Readonly<Record<string, CountedDiff>>): MirrorFigures {
  let figures: MirrorFigures = { expected: 0, found: 0, missing: 0, duplicated: 0, different: 0 };
  for (const counted of Object.values(diffs)) {
    figures = {
      expected: figures.expected + counted.expected,
      found: figures.found + counted.stored,
      missing: figures.missing + counted.diff.missing.length,
      duplicated: figures.duplicated + counted.diff.unexpected.length + (counted.stored - counted.distinct),
      different: figures.different + counted.diff.different.length,
    };
  }
  return figures;
}

/** Asserts the sink equals the truth, naming the first differences of every table that does not. */
export function expectExact(diffs: Readonly<Record<string, CountedDiff>>): void {
  const problems = Object.entries(diffs)
    .filter(([, c]) => c.diff.missing.length + c.diff.unexpected.length + c.diff.different.length > 0 || c.stored !== c.distinct)
    .map(
      ([key, c]) =>
        `${key}: missing ${c.diff.missing.length} (${c.diff.missing.slice(0, 3).join(', ')}), unexpected ${c.diff.unexpected.length}, twice ${c.stored - c.distinct}, different ${c.diff.different.length}${c.diff.different[0] ? ` (${c.diff.different[0].id}: ${c.diff.different[0].what})` : ''}`,
    );
  expect(problems).toEqual([]);
}
