import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import type { BenchRow } from './result.js';
import type { BenchReport } from './write-results.js';

/** What bench-results.json holds: the report and the machine it ran on (`writeResults`). */
export interface BenchResultsFile extends BenchReport {
  readonly machine?: Readonly<Record<string, unknown>>;
}

const START = '<!-- bench-table -->';
const END = '<!-- /bench-table -->';

/** A table cell: one line, and no `|` that would end the cell early. */
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function describeMachine(machine: BenchResultsFile['machine']): string {
  if (machine === undefined) return 'machine not recorded';
  const { cpus, cpuModel, totalMemGiB, node, platform } = machine;
  const parts = [
    `${String(cpus)} CPUs`,
    typeof cpuModel === 'string' ? cpuModel.trim() : undefined,
    `${String(totalMemGiB)} GiB`,
    `Node ${String(node)}`,
    platform,
  ];
  return parts.filter((part): part is string => typeof part === 'string' && part !== '').join(', ');
}

/**
 * The block docs/performance.md shows between its markers: the date and command that produced the
 * figures, the machine, then one table row per bench row, in the bench's order.
 */
export function renderBenchTable(report: BenchResultsFile): string {
  const command = report.mode === 'quick' ? 'npm run bench -- --quick' : 'npm run bench';
  const rows: readonly BenchRow[] = report.rows;
  return [
    `${report.startedAt.slice(0, 10)}, \`${command}\` (${Math.round(report.seconds)} s; ${describeMachine(report.machine)}):`,
    '',
    '| Figure | Measured | Target | Baseline | Status |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${[row.figure, row.measured, row.target, row.baseline ?? '', row.status].map(cell).join(' | ')} |`),
  ].join('\n');
}

/** `doc` with the text between its bench-table markers replaced by `table`; throws when a marker is missing. */
export function withBenchTable(doc: string, table: string): string {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start === -1 || end < start) throw new Error(`docs/performance.md needs the markers ${START} and ${END}, in that order`);
  return `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`;
}

/**
 * docs/performance.md with `report`'s table, in the repository's prettier format, so the page the
 * bench writes is the page `prettier --check` accepts.
 */
export async function performanceDoc(doc: string, report: BenchResultsFile): Promise<string> {
  const options = await resolveConfig(fileURLToPath(new URL('../../docs/performance.md', import.meta.url)));
  return format(withBenchTable(doc, renderBenchTable(report)), { ...options, parser: 'markdown' });
}

/** Renders `resultsFile` into the table of `docFile` (docs/performance.md), leaving the rest of the page alone. */
export async function writePerformanceDoc(resultsFile: string, docFile: string): Promise<void> {
  const report = JSON.parse(await readFile(resultsFile, 'utf8')) as BenchResultsFile;
  await writeFile(docFile, await performanceDoc(await readFile(docFile, 'utf8'), report));
}
