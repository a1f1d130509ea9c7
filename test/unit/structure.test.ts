import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, ROOT, sourceFiles } from './source-graph.js';

const files = sourceFiles(['src', 'connectors', 'test']);
const graph = importGraph(files);

/** The files `npm run build` compiles into dist/, exactly as tsc lists them from tsconfig.build.json. */
function builtFiles(): string[] {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n')); } };
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.build.json'), {}, host);
  if (parsed === undefined) throw new Error('tsconfig.build.json could not be read');
  return parsed.fileNames.map((file) => relative(ROOT, file));
}

/** Every file reachable by imports (static or dynamic) from `from`. */
function reachable(from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  for (let file = todo.pop(); file !== undefined; file = todo.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    todo.push(...(graph.get(file) ?? []));
  }
  return seen;
}

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

  it('builds into dist/ only what the callsync command can load: no test code, fixtures or helpers', () => {
    const built = builtFiles();
    expect(built).toContain('src/cli/main.ts');
    const loadable = reachable('src/cli/main.ts');
    expect(built.filter((file) => !loadable.has(file))).toEqual([]);
  });

  it('keeps the domain state free of the queue and the HTTP server that read it, and the queue free of the server', () => {
    const forbidden: ReadonlyArray<readonly [string, readonly string[]]> = [
      ['src/state/', ['src/queue/', 'src/server/']],
      ['src/queue/', ['src/server/']],
    ];
    const wrong = forbidden.flatMap(([from, targets]) =>
      [...graph]
        .filter(([file]) => file.startsWith(from))
        .flatMap(([file, imports]) => imports.filter((t) => targets.some((target) => t.startsWith(target))).map((t) => `${file} → ${t}`)),
    );
    expect(wrong).toEqual([]);
  });
});
