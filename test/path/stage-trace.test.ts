import { describe, expect, it } from 'vitest';
import { documentedPath, importOrder, pathStages, stageLeaves } from './architecture-doc.js';
import { inPathOrder, pagesBetweenCuts, readPage, type StageMap } from './stage-trace.js';

const map: StageMap = {
  stages: ['entry', 'engine', 'source', 'sink'].map((name) => ({ name, folders: [`src/${name}/`] })),
  leaves: ['src/base/'],
};

// One page as the trace records it: the file of every function entered, in order.
const page = ['src/engine/loop.ts', 'src/source/walker.ts', 'src/base/chunks.ts', 'src/source/client.ts', 'src/sink/write.ts'];

describe('reading a page of the trace against the stages', () => {
  it('passes a page that enters each stage once, in order, leaves aside', () => {
    const reading = readPage(page, map);
    expect(reading).toEqual({
      stages: ['engine', 'source', 'sink'],
      firstEntered: ['engine', 'source', 'sink'],
      unplaced: [],
      afterLater: [],
      revisited: [],
      cli: [],
    });
    expect(inPathOrder(reading.firstEntered, map.stages)).toBe(true);
  });

  it('fails when a file moves into the wrong stage: the stage order breaks and the file is entered after a later stage', () => {
    // The same calls, the client moved from source/ to sink/, the walker's stage called after it.
    const moved = ['src/engine/loop.ts', 'src/sink/client.ts', 'src/source/walker.ts', 'src/sink/write.ts'];
    const reading = readPage(moved, map);
    expect(inPathOrder(reading.firstEntered, map.stages)).toBe(false);
    expect(reading.afterLater).toEqual(['src/source/walker.ts']);
    expect(reading.stages).toEqual(['engine', 'sink', 'source', 'sink']);
  });

  it('names a callback into an earlier stage, and a file entered in two visits of its stage', () => {
    const callback = ['src/engine/loop.ts', 'src/source/client.ts', 'src/sink/write.ts', 'src/source/client.ts', 'src/sink/write.ts'];
    const reading = readPage(callback, map);
    expect(reading.afterLater).toEqual(['src/source/client.ts']);
    expect(reading.revisited).toEqual(['src/source/client.ts', 'src/sink/write.ts']);
    expect(inPathOrder(reading.firstEntered, map.stages)).toBe(true);
  });

  it('names a closure of the command line on the path, and a file in no stage', () => {
    const reading = readPage(['src/engine/loop.ts', 'src/entry/cli/backfill/run.ts', 'src/config/schema.ts', 'src/source/client.ts'], map);
    expect(reading.cli).toEqual(['src/entry/cli/backfill/run.ts']);
    expect(reading.afterLater).toEqual(['src/entry/cli/backfill/run.ts']);
    expect(reading.unplaced).toEqual(['src/config/schema.ts']);
  });

  it('cuts pages between cuts, leaving out what comes before the first and after the last', () => {
    expect(pagesBetweenCuts(['a', 'b', 'c', 'd', 'e'], [1, 3, 4])).toEqual([['b', 'c'], ['d']]);
    expect(pagesBetweenCuts(['a'], [1])).toEqual([]);
  });
});

describe('docs/architecture.md, as the path tests read it', () => {
  it('names at most 7 stages in path order, each with its folders, and src/base/ as leaves', () => {
    const stages = pathStages();
    expect(stages.map((stage) => stage.name)).toEqual(['entry', 'engine', 'source', 'http', 'normalize', 'sink', 'connectors']);
    expect(stages.every((stage) => stage.folders.length > 0)).toBe(true);
    expect(stageLeaves()).toEqual(['src/base/']);
  });

  it('places every stage folder in the import order', () => {
    const order = importOrder();
    const folders = pathStages().flatMap((stage) => stage.folders);
    expect(folders.filter((folder) => !order.some((entry) => folder.startsWith(entry)))).toEqual([]);
  });

  it('states a path for each traced connector', () => {
    for (const name of ['sqlite', 'postgres', 'hubspot', 'salesforce']) expect(documentedPath(name).stages.length).toBeGreaterThan(0);
  });

  it('reads a path block: its stages, and the files entered after a later stage, or none', () => {
    const text = [
      '<!-- x-path -->',
      'Stages: engine → source → sink',
      '',
      'Entered after a later stage:',
      '',
      '1. `src/http/exchange.ts`: the transport',
      '<!-- /x-path -->',
      '<!-- y-path -->',
      'Stages: engine',
      'Entered after a later stage: none.',
      '<!-- /y-path -->',
    ].join('\n');
    expect(documentedPath('x', text)).toEqual({ stages: ['engine', 'source', 'sink'], reentered: ['src/http/exchange.ts'] });
    expect(documentedPath('y', text)).toEqual({ stages: ['engine'], reentered: [] });
  });
});
