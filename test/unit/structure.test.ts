import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, ROOT, sourceFiles } from './source-graph.js';

const files = sourceFiles(['src', 'connectors', 'test']);
const graph = importGraph(files);

describe('source structure', () => {
  it('finds the repository sources (so the checks below cannot pass on an empty list)', () => {
    expect(files).toContain('src/cli/main.ts');
    expect(graph.get('src/cli/main.ts')?.length).toBeGreaterThan(0);
  });

  it('detects a cycle when one exists', () => {
    expect(importCycles(new Map([['a.ts', ['b.ts']], ['b.ts', ['c.ts']], ['c.ts', ['a.ts']]]))).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(importCycles(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(graph).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('has no TypeScript file over 400 lines', () => {
    const long = files.map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length })).filter((f) => f.lines > 400);
    expect(long).toEqual([]);
  });

  it('keeps the domain state free of the queue and the HTTP server that read it', () => {
    const wrong = [...graph].filter(([file]) => file.startsWith('src/state/')).flatMap(([file, targets]) =>
      targets.filter((t) => t.startsWith('src/queue/') || t.startsWith('src/server/')).map((t) => `${file} → ${t}`),
    );
    expect(wrong).toEqual([]);
  });
});
