import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** The repository root, whatever directory vitest runs from. */
const ROOT = resolve(import.meta.dirname, '../..');

/** The page that states the stages, the import order and each connector's path; the tests read it, so it cannot drift from the code. */
export const ARCHITECTURE = 'docs/architecture.md';

function architectureText(): string {
  return readFileSync(join(ROOT, ARCHITECTURE), 'utf8');
}

/** The text between `<!-- name -->` and `<!-- /name -->`. */
export function docBlock(name: string, text: string = architectureText()): string {
  const block = new RegExp(`<!-- ${name} -->([\\s\\S]*?)<!-- /${name} -->`).exec(text)?.[1];
  if (block === undefined) throw new Error(`${ARCHITECTURE} has no <!-- ${name} --> … <!-- /${name} --> block`);
  return block;
}

/** The first backticked text of each numbered line of a block, in order. */
function numberedPaths(block: string): string[] {
  return [...block.matchAll(/^\d+\. [^`\n]*`([^`]+)`/gm)].map((match) => match[1] ?? '');
}

/** The folder prefixes in import order (`<!-- import-order -->`): a folder imports only from its own entry or a later one. */
export function importOrder(text?: string): string[] {
  return numberedPaths(docBlock('import-order', text));
}

export interface Stage {
  readonly name: string;
  /** Folder prefixes (ending in `/`) whose files belong to this stage. */
  readonly folders: readonly string[];
}

/** The stages in the order a page enters them (`<!-- stages -->`: `1. **name** (`folder/`, …): what it holds`). */
export function pathStages(text?: string): Stage[] {
  return [...docBlock('stages', text).matchAll(/^\d+\. \*\*([a-z]+)\*\* \(([^)]*)\)/gm)].map((match) => ({
    name: match[1] ?? '',
    folders: [...(match[2] ?? '').matchAll(/`([^`]+)`/g)].map((folder) => folder[1] ?? ''),
  }));
}

/** Folder prefixes (backticked, ending in `/`) of leaves any stage calls (the `Leaves:` line of `<!-- stages -->`): no stage of the path. */
export function stageLeaves(text?: string): string[] {
  const line = /^Leaves: (.*)$/m.exec(docBlock('stages', text))?.[1] ?? '';
  return [...line.matchAll(/`([^`]+\/)`/g)].map((match) => match[1] ?? '');
}

/** What a connector's path block (`<!-- <name>-path -->`) states for every page. */
export interface DocumentedPath {
  /** The stages in the order a page first enters each. */
  readonly stages: readonly string[];
  /** The files a page enters after control has reached a later stage. */
  readonly reentered: readonly string[];
}

/**
 * A path block: a `Stages…: a → b → …` line (the order a page first enters them), then an
 * `Entered after a later stage:` line followed by a numbered list of files (each with why), or `none.`
 */
export function documentedPath(name: string, text?: string): DocumentedPath {
  const block = docBlock(`${name}-path`, text);
  const stages = /^Stages[^:\n]*: (.+)$/m.exec(block)?.[1];
  const again = /^Entered after a later stage:(.*)$/m.exec(block);
  if (stages === undefined || again === null) throw new Error(`<!-- ${name}-path --> needs a "Stages:" line and an "Entered after a later stage:" line`);
  const rest = block.slice(again.index);
  return {
    stages: stages.split('→').map((stage) => stage.trim()),
    reentered: again[1]?.trim() === 'none.' ? [] : numberedPaths(rest),
  };
}
