import { writeFileSync } from 'node:fs';
import { clearRows, formatRows, readRows, RESULTS_PATH } from './support/results.js';
import { clearScans, readScans } from './support/secret-scanner.js';

/** Starts every chaos run with no rows; at the end writes the JSON figures and prints the tables. */
export default function setup(): () => void {
  clearRows();
  clearScans();
  return () => {
    // Files run in vitest's order (by duration); the table follows the scenario numbers.
    const rows = readRows().sort((a, b) => Number.parseInt(a.scenario, 10) - Number.parseInt(b.scenario, 10));
    const scans = readScans();
    writeFileSync(RESULTS_PATH, `${JSON.stringify({ scenarios: rows, secretScans: scans }, null, 2)}\n`);
    const outputs = scans.reduce((sum, scan) => sum + scan.outputs, 0);
    const megabytes = scans.reduce((sum, scan) => sum + scan.bytes, 0) / 1e6;
    const leaks = scans.flatMap((scan) => scan.leaks.map((leak) => `  LEAK ${scan.file}: ${leak}`));
    const scanLine = `secret scan: ${outputs} outputs (${megabytes.toFixed(1)} MB) from ${scans.length} files, ${leaks.length} leaks`;
    process.stdout.write(`\ncallsync chaos results (${RESULTS_PATH}):\n${formatRows(rows)}\n${[scanLine, ...leaks].join('\n')}\n\n`);
  };
}
