import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { importOrder } from '../path/architecture-doc.js';
import { folderGraph, importCycles, importGraph, importOrderViolations, ROOT, sourceFiles } from './source-graph.js';

const files = sourceFiles(['src', 'connectors', 'simulator', 'test']);
const graph = importGraph(files);

/** The files `npm run build` compiles into dist/, exactly as tsc lists them from tsconfig.build.json. */
function builtFiles(): string[] {
  const host = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d: ts.Diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  };
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
    expect(files).toContain('src/entry/cli/main.ts');
    expect(graph.get('src/entry/cli/main.ts')?.length).toBeGreaterThan(0);
  });

  it('detects a cycle when one exists', () => {
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', ['a.ts']],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts', 'c.ts', 'a.ts']]);
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
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
    expect(built).toContain('src/entry/cli/main.ts');
    const loadable = reachable('src/entry/cli/main.ts');
    expect(built.filter((file) => !loadable.has(file))).toEqual([]);
  });

  it('keeps the domain state free of the queue and the HTTP server that read it, and the queue free of the server', () => {
    const forbidden: ReadonlyArray<readonly [string, readonly string[]]> = [
      ['src/engine/state/', ['src/engine/queue/', 'src/entry/server/']],
      ['src/engine/queue/', ['src/entry/server/']],
    ];
    const wrong = forbidden.flatMap(([from, targets]) =>
      [...graph]
        .filter(([file]) => file.startsWith(from))
        .flatMap(([file, imports]) => imports.filter((t) => targets.some((target) => t.startsWith(target))).map((t) => `${file} → ${t}`)),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps connector facts in connectors/: no sink name or database error code in a string of src/ code', () => {
    // Named here on purpose: the demo is SQLite by design and reads its file back as a warehouse user
    // would; the command's one-line description; table-name prefixes the SQL engines own, reserved for every sink.
    const allowed = new Set([
      'src/entry/cli/demo.ts',
      'src/entry/cli/demo/demo-config.ts',
      'src/entry/cli/demo/table-counts.ts',
      'src/entry/cli/main.ts|Mirror call-tracking data into SQLite, Postgres, MySQL, DuckDB, ClickHouse, Parquet files, HubSpot, Salesforce or a webhook.',
      'src/config/sections.ts|sqlite_',
    ]);
    const connectorName = /hubspot|salesforce|postgres|sqlite/i;
    const errorCode = /^[0-9][0-9A-Z]{4}$|^SQLITE_/; // a Postgres SQLSTATE (28P01, 3D000) or an SQLite result code
    const code = files.filter((file) => file.startsWith('src/') && !/\.test\.ts$|\.unit\.ts$|\.fixtures\.ts$|\.child\.ts$|test-fixtures\.ts$/.test(file));
    const found: string[] = [];
    for (const file of code) {
      const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
          const inImport = ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent);
          const named = connectorName.test(node.text) || errorCode.test(node.text);
          if (named && !inImport && !allowed.has(file) && !allowed.has(`${file}|${node.text}`)) found.push(`${file}: '${node.text}'`);
        }
        node.forEachChild(visit);
      };
      visit(source);
    }
    expect(code).toContain('src/http/services.ts');
    expect(found).toEqual([]);
  });

  it('keeps connectors/sql/ beneath the SQL dialects: it imports no other connector folder, so each dialect opens itself', () => {
    const shared = [...graph].filter(([file]) => file.startsWith('connectors/sql/'));
    expect(shared.map(([file]) => file)).toContain('connectors/sql/target.ts');
    const wrong = shared.flatMap(([file, imports]) =>
      imports.filter((target) => target.startsWith('connectors/') && !target.startsWith('connectors/sql/')).map((target) => `${file} → ${target}`),
    );
    expect(wrong).toEqual([]);
  });
});

// The folders are the stages: docs/architecture.md lists them in import order, and this reads that list.
describe('folder import order', () => {
  const code = files.filter((file) => /^(src|connectors|simulator)\//.test(file) && !file.endsWith('.test.ts'));
  const folders = folderGraph(importGraph(code));
  const staged = new Map([...folders].filter(([folder]) => !isSimulator(folder)));

  it('reads the import order from docs/architecture.md and places every folder of src/ and connectors/ in it', () => {
    const order = importOrder();
    expect(order).toEqual(expect.arrayContaining(['src/entry/', 'src/engine/', 'connectors/', 'src/base/']));
    expect(folders.get('src/engine/sync')?.length).toBeGreaterThan(0);
    expect([...staged.keys()].filter((folder) => order.every((entry) => !`${folder}/`.startsWith(entry)))).toEqual([]);
  });

  it('fails when a file moves into the wrong stage, and when a folder sits in none', () => {
    const order = ['src/engine/', 'src/source/', 'src/base/'];
    const files = new Map([
      ['src/engine/sync/loop.ts', ['src/source/walkers/walk.ts', 'src/base/chunks.ts']],
      ['src/source/walkers/walk.ts', ['src/base/chunks.ts']],
      ['src/base/chunks.ts', []],
    ]);
    expect(importOrderViolations(folderGraph(files), order)).toEqual([]);
    expect(importCycles(folderGraph(files))).toEqual([]);
    // The loop moved down among the leaves it imports: a leaf now imports the source stage, which imports it back.
    const moved = new Map([...files].map(([file, targets]) => [file.replace('src/engine/sync/', 'src/base/'), targets]));
    expect(importOrderViolations(folderGraph(moved), order)).toEqual(['src/base → src/source/walkers (src/base/ imports src/source/, earlier in the order)']);
    expect(importCycles(folderGraph(moved))).toEqual([['src/base', 'src/source/walkers', 'src/base']]);
    expect(importOrderViolations(new Map([['src/elsewhere', []]]), order)).toEqual(['src/elsewhere: in no stage of the import order']);
  });

  it('has no cycle between folders (type-only imports count)', () => {
    expect(importCycles(folders).map((cycle) => cycle.join(' → '))).toEqual([]);
  });

  it('imports only from its own stage or a later one', () => {
    expect(importOrderViolations(staged, importOrder())).toEqual([]);
  });

  it('keeps the simulator a program of its own: it imports only src/base/, and only src/entry/ starts it', () => {
    const wrong = [...folders].flatMap(([folder, targets]) =>
      targets
        .filter((target) =>
          isSimulator(folder) ? !isSimulator(target) && !target.startsWith('src/base') : isSimulator(target) && !folder.startsWith('src/entry/'),
        )
        .map((target) => `${folder} → ${target}`),
    );
    expect(folders.has('simulator')).toBe(true);
    expect(wrong).toEqual([]);
  });
});

function isSimulator(folder: string): boolean {
  return folder === 'simulator' || folder.startsWith('simulator/');
}
