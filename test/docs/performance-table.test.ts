import { describe, expect, it } from 'vitest';
import { performanceDoc, renderBenchTable, type BenchResultsFile } from '../bench/write-performance-doc.js';
import { readRepoFile } from './markdown.js';

describe('docs/performance.md', () => {
  it('shows the table the bench rendered from the committed bench-results.json', async () => {
    const report = JSON.parse(readRepoFile('bench-results.json')) as BenchResultsFile;
    const doc = readRepoFile('docs/performance.md');
    expect(report.rows.length).toBeGreaterThan(0);
    expect(doc).toEqual(await performanceDoc(doc, report));
  });

  it('would differ if a figure in bench-results.json changed', async () => {
    const report = JSON.parse(readRepoFile('bench-results.json')) as BenchResultsFile;
    const doc = readRepoFile('docs/performance.md');
    const [first, ...rest] = report.rows;
    if (first === undefined) throw new Error('bench-results.json has no rows');
    const changed: BenchResultsFile = { ...report, rows: [{ ...first, measured: `${first.measured} (changed)` }, ...rest] };
    expect(await performanceDoc(doc, changed)).not.toEqual(doc);
  });

  it('renders a cell with a | or a line break as one cell', () => {
    const table = renderBenchTable({
      mode: 'full',
      startedAt: '2026-11-27T10:00:00.000Z',
      seconds: 300,
      rows: [{ figure: 'a | b', measured: 'x\ny', target: '', status: 'info' }],
    });
    expect(table).toContain('| a \\| b | x y |  |  | info |');
    expect(table.split('\n')[0]).toBe('2026-11-27, `npm run bench` (300 s; machine not recorded):');
  });
});
