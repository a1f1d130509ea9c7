import { describe, expect, it } from 'vitest';
import { unimportedExports } from './export-graph.js';
import { sourceFiles } from './source-graph.js';

/**
 * Test code: what the build leaves out (tsconfig.build.json) and everything under test/. It counts
 * as an importer: a name a test drives (a seam, a pure function tested alone) is used, and taking it
 * away breaks that test. It is never a subject: helpers for tests answer to the tests that use them.
 */
function isTestCode(file: string): boolean {
  return file.startsWith('test/') || /\.test\.ts$|\.unit\.ts$|\.fixtures\.ts$|\.child\.ts$|(^|\/)test-fixtures\.ts$/.test(file);
}

const files = sourceFiles(['src', 'connectors', 'simulator', 'test']);
const subjects = files.filter((file) => (file.startsWith('src/') || file.startsWith('connectors/')) && !isTestCode(file));

describe('exports of src/ and connectors/', () => {
  it('names an export nobody imports, and follows re-exports to what they name', () => {
    const pair = ['simulator/index.ts', 'simulator/start.ts'];
    expect(unimportedExports(pair, [])).toEqual(expect.arrayContaining(['simulator/index.ts#startSimulator', 'simulator/start.ts#startSimulator']));
    const viaIndex = unimportedExports(pair, ['src/entry/cli/simulate.ts']);
    expect(viaIndex).not.toContain('simulator/index.ts#startSimulator');
    expect(viaIndex).not.toContain('simulator/start.ts#startSimulator');
  });

  // A whole-tree parse: seconds on a loaded two-core machine, more than the unit project's default.
  it('has no dead export', { timeout: 120_000 }, () => {
    expect(subjects).toContain('src/entry/cli/main.ts');
    expect(unimportedExports(subjects, files)).toEqual([]);
  });
});
