import { formatTable } from '../../src/entry/cli/common/text-table.js';
import type { BenchRow } from './result.js';

/** The table the lead copies into the README's Performance section. */
export function printTable(rows: readonly BenchRow[]): string {
  return formatTable(
    ['figure', 'measured', 'target', 'baseline', 'status'],
    rows.map((row) => [row.figure, row.measured, row.target, row.baseline ?? '', row.status]),
  );
}
