import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository root, whatever directory vitest runs from. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** Every `.ts` file under the given top-level folders, as paths relative to the root. */
export function sourceFiles(folders: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) files.push(path);
    }
  };
  for (const folder of folders) walk(folder);
  return files.sort();
}

// `import … from './x.js'`, `import type …`, `export … from` (over several lines) and `import('./x.js')`;
// bare packages are not followed.
const RELATIVE_IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** file → the files it imports (type-only imports included: a cycle of types is still a cycle to read). */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets = [...text.matchAll(RELATIVE_IMPORT)].map((match) =>
      relative(ROOT, resolve(ROOT, dirname(file), (match[1] ?? match[2]!).replace(/\.js$/, '.ts'))),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** Every cycle a depth-first walk meets, each as the files along it. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const visiting = new Set<string>();
  const done = new Set<string>();
  const path: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    visiting.add(file);
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (visiting.has(target)) cycles.push([...path.slice(path.indexOf(target)), target]);
      else if (!done.has(target)) visit(target);
    }
    path.pop();
    visiting.delete(file);
    done.add(file);
  };
  for (const file of graph.keys()) if (!done.has(file)) visit(file);
  return cycles;
}

/**
 * folder → the other folders its files import: every directory is a node of its own (a folder and
 * its subfolder too), so two folders that import each other are a cycle even when their files are not.
 */
export function folderGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = dirname(file);
    const into = folders.get(from) ?? new Set<string>();
    folders.set(from, into);
    for (const target of targets) if (dirname(target) !== from) into.add(dirname(target));
  }
  return new Map([...folders].map(([folder, targets]) => [folder, [...targets].sort()]));
}

/** The index of the import-order entry (a folder prefix such as `src/engine/`) that holds `folder`, or -1. */
export function orderRank(folder: string, order: readonly string[]): number {
  return order.findIndex((entry) => `${folder}/`.startsWith(entry));
}

/**
 * The imports that go against `order` (folder prefixes, first imports later): a folder may import
 * its own entry and the entries after it, never one before; a folder in no entry is wrong too.
 */
export function importOrderViolations(folders: ReadonlyMap<string, readonly string[]>, order: readonly string[]): string[] {
  const wrong: string[] = [];
  for (const [folder, targets] of folders) {
    const rank = orderRank(folder, order);
    if (rank < 0) wrong.push(`${folder}: in no stage of the import order`);
    for (const target of targets) {
      const targetRank = orderRank(target, order);
      if (targetRank >= 0 && targetRank < rank) wrong.push(`${folder} → ${target} (${order[rank]} imports ${order[targetRank]}, earlier in the order)`);
    }
  }
  return wrong;
}
