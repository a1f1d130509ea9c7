import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { ROOT } from './source-graph.js';

/** An exported name of a file, as `file#name`. */
export type ExportKey = `${string}#${string}`;

/** What one file exports and where each name it re-exports comes from. */
interface FileExports {
  /** Names declared here with `export` (or listed in `export { … }` without `from`). */
  readonly own: Set<string>;
  /** `export { a as b } from './x.js'`: b → x.ts#a. */
  readonly renamed: Map<string, ExportKey>;
  /** `export * from './x.js'`: x.ts. */
  readonly stars: string[];
}

/** One file's imports: named ones as keys, and files whose every export it may use (`import *`, `import()`). */
interface FileImports {
  readonly names: ExportKey[];
  readonly wholeFiles: string[];
}

function target(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  return relative(ROOT, resolve(ROOT, dirname(file), specifier.replace(/\.js$/, '.ts')));
}

function hasExportModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false);
}

function declaredNames(node: ts.Statement): string[] {
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []));
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isClassDeclaration(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeAliasDeclaration(node) ||
      ts.isEnumDeclaration(node)) &&
    node.name !== undefined
  ) {
    return [node.name.text];
  }
  return [];
}

/** Parses one file (syntax only: fast enough for a unit test over the whole tree). */
function scan(file: string): { exports: FileExports; imports: FileImports } {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const exports: FileExports = { own: new Set(), renamed: new Map(), stars: [] };
  const imports: FileImports = { names: [], wholeFiles: [] };
  for (const statement of source.statements) {
    if (hasExportModifier(statement)) for (const name of declaredNames(statement)) exports.own.add(name);
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const from = target(file, statement.moduleSpecifier.text);
      const bindings = statement.importClause?.namedBindings;
      if (from === undefined || bindings === undefined) continue;
      if (ts.isNamespaceImport(bindings)) imports.wholeFiles.push(from);
      else for (const element of bindings.elements) imports.names.push(`${from}#${(element.propertyName ?? element.name).text}`);
    }
    if (ts.isExportDeclaration(statement)) {
      const from =
        statement.moduleSpecifier !== undefined && ts.isStringLiteral(statement.moduleSpecifier) ? target(file, statement.moduleSpecifier.text) : undefined;
      const clause = statement.exportClause;
      if (clause === undefined) {
        if (from !== undefined) exports.stars.push(from);
      } else if (ts.isNamedExports(clause)) {
        for (const element of clause.elements) {
          const local = (element.propertyName ?? element.name).text;
          if (from === undefined) exports.own.add(element.name.text);
          else exports.renamed.set(element.name.text, `${from}#${local}`);
        }
      }
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      const from = argument !== undefined && ts.isStringLiteral(argument) ? target(file, argument.text) : undefined;
      if (from !== undefined) imports.wholeFiles.push(from);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { exports, imports };
}

/**
 * Every exported name of `subjects` that no file of `importers` imports, directly or through a
 * re-export, as `file#name`. A re-export alone is no use: it counts only when its own name is imported.
 */
export function unimportedExports(subjects: readonly string[], importers: readonly string[]): ExportKey[] {
  const scanned = new Map([...new Set([...subjects, ...importers])].map((file) => [file, scan(file)] as const));
  const used = new Set<ExportKey>();
  // Follows a used name to where it is declared, marking every step.
  const use = (key: ExportKey, seen = new Set<ExportKey>()): void => {
    if (seen.has(key)) return;
    seen.add(key);
    used.add(key);
    const hash = key.indexOf('#');
    const file = key.slice(0, hash);
    const name = key.slice(hash + 1);
    const exports = scanned.get(file)?.exports;
    if (exports === undefined || exports.own.has(name)) return;
    const renamed = exports.renamed.get(name);
    if (renamed !== undefined) use(renamed, seen);
    else for (const star of exports.stars) use(`${star}#${name}`, seen);
  };
  const useWhole = (file: string): void => {
    const exports = scanned.get(file)?.exports;
    if (exports === undefined) return;
    for (const name of [...exports.own, ...exports.renamed.keys()]) use(`${file}#${name}`);
    for (const star of exports.stars) useWhole(star);
  };
  for (const importer of importers) {
    const { imports } = scanned.get(importer)!;
    for (const key of imports.names) use(key);
    for (const file of imports.wholeFiles) useWhole(file);
  }
  return subjects.flatMap((file) => {
    const { own, renamed } = scanned.get(file)!.exports;
    return [...own, ...renamed.keys()].map((name): ExportKey => `${file}#${name}`).filter((key) => !used.has(key));
  });
}
