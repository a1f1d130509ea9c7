import { appendFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';

const ROOT = join(import.meta.dirname, '../../..');
/** Rows as JSON lines while the run goes on; the global teardown turns them into `RESULTS_PATH`. */
export const ROWS_PATH = join(ROOT, 'test-output/chaos-results.jsonl');
/** The figures of the last chaos run, one object per scenario. */
export const RESULTS_PATH = join(ROOT, 'test-output/chaos-results.json');

/** One scenario's figures: what was injected and what the sink held at the end. */
export interface ChaosRow {
  readonly scenario: string;
  /** Faults injected, by kind (from the simulator's counters or the test's own count). */
  readonly faults: Readonly<Record<string, number>>;
  /** Processes (or services) killed and started again. */
  readonly restarts: number;
  readonly expected: number;
  readonly found: number;
  readonly missing: number;
  /** Stored rows beyond one per expected record: an id twice, or a record under an unexpected id. */
  readonly duplicated: number;
  /** Anything else worth a line in the table (e.g. "exit 2 for 14/14 configs"). */
  readonly note?: string;
}

/** Appends a scenario's row; files run one at a time, so appends never interleave. */
export function recordRow(row: ChaosRow): void {
  mkdirSync(dirname(ROWS_PATH), { recursive: true });
  appendFileSync(ROWS_PATH, `${JSON.stringify(row)}\n`);
}

export function readRows(): ChaosRow[] {
  try {
    return readFileSync(ROWS_PATH, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as ChaosRow);
  } catch {
    return [];
  }
}

export function clearRows(): void {
  rmSync(ROWS_PATH, { force: true });
}

function faultText(faults: Readonly<Record<string, number>>): string {
  const parts = Object.entries(faults)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${kind} ${count}`);
  return parts.length === 0 ? '-' : parts.join(', ');
}

/** The plain-text table CI logs show: one aligned line per scenario. */
export function formatRows(rows: readonly ChaosRow[]): string {
  const header = ['scenario', 'faults injected', 'restarts', 'expected', 'found', 'missing', 'duplicated', 'note'];
  const body = rows.map((row) => [
    row.scenario,
    faultText(row.faults),
    String(row.restarts),
    String(row.expected),
    String(row.found),
    String(row.missing),
    String(row.duplicated),
    row.note ?? '',
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((cells) => cells[column]!.length)));
  const numeric = new Set([2, 3, 4, 5, 6]);
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (numeric.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...body.map(line)].join('\n');
}
