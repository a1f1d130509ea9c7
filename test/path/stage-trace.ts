import type { Stage } from './architecture-doc.js';

/**
 * The pages of a trace: what lies between two cuts. What comes before the first cut (set-up and
 * the first page, which loads modules and prepares statements) and after the last (the end of the
 * run) is no page of the steady path.
 */
export function pagesBetweenCuts(files: readonly string[], cuts: readonly number[]): string[][] {
  return cuts.slice(1).map((end, index) => files.slice(cuts[index], end));
}

/** Where the files of a trace belong. */
export interface StageMap {
  /** In path order. */
  readonly stages: readonly Stage[];
  /** Folder prefixes of leaves any stage calls (JSON, chunks): a call there returns to its caller, so it is no stage of the path. */
  readonly leaves: readonly string[];
}

/** What one page's trace says about its path. */
export interface PageReading {
  /** The stages in the order the page entered them, consecutive entries of one stage counted once. */
  readonly stages: readonly string[];
  /** Each stage once, in the order the page first entered it. */
  readonly firstEntered: readonly string[];
  /** Files in no stage (and no leaf folder), in first-met order. */
  readonly unplaced: readonly string[];
  /** Files entered after the page had reached a later stage, in first-met order. */
  readonly afterLater: readonly string[];
  /** Files entered in more than one visit of their stage (control left the stage and came back to them). */
  readonly revisited: readonly string[];
  /** Files of the command line (`src/entry/cli/`): the composition roots build the path and never run on it. */
  readonly cli: readonly string[];
}

/** The index of the stage that holds `file` (the longest folder prefix wins), or -1. */
export function stageIndex(file: string, stages: readonly Stage[]): number {
  let found = -1;
  let length = 0;
  for (const [index, stage] of stages.entries())
    for (const folder of stage.folders)
      if (file.startsWith(folder) && folder.length > length) {
        found = index;
        length = folder.length;
      }
  return found;
}

/** Reads one page's trace (the file of every function entered, in order) against the stages. */
export function readPage(files: readonly string[], map: StageMap): PageReading {
  const stages: string[] = [];
  const firstEntered: string[] = [];
  const unplaced = new Set<string>();
  const afterLater = new Set<string>();
  const revisited = new Set<string>();
  const cli = new Set<string>();
  const visitOf = new Map<string, number>();
  let current = -1;
  let furthest = -1;
  for (const file of files) {
    if (map.leaves.some((leaf) => file.startsWith(leaf))) continue;
    if (file.startsWith('src/entry/cli/')) cli.add(file);
    const index = stageIndex(file, map.stages);
    if (index < 0) {
      unplaced.add(file);
      continue;
    }
    const name = map.stages[index]?.name ?? '';
    if (index !== current) {
      stages.push(name);
      current = index;
    }
    if (!firstEntered.includes(name)) firstEntered.push(name);
    if (index < furthest) afterLater.add(file);
    furthest = Math.max(furthest, index);
    const visit = visitOf.get(file);
    if (visit !== undefined && visit !== stages.length) revisited.add(file);
    visitOf.set(file, stages.length);
  }
  return { stages, firstEntered, unplaced: [...unplaced], afterLater: [...afterLater], revisited: [...revisited], cli: [...cli] };
}

/** Whether `names` follow the stages' order (each one later than the one before). */
export function inPathOrder(names: readonly string[], stages: readonly Stage[]): boolean {
  const ranks = names.map((name) => stages.findIndex((stage) => stage.name === name));
  return ranks.every((rank, index) => rank >= 0 && (index === 0 || rank > (ranks[index - 1] ?? -1)));
}
