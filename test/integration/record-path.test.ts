import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session, type Profiler } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink, type SinkConfig } from '../../connectors/registry.js';
import { runBackfill } from '../../src/cli/backfill/run-backfill.js';
import type { BackfillReporter } from '../../src/cli/backfill/reporter.js';
import { planBusinesses } from '../../src/sync/plan-businesses.js';
import { benchConfig } from '../bench/bench-config.js';
import { silentLogger } from '../bench/silent-logger.js';
import { startSimulatorChild, type SimulatorChild } from '../bench/simulator-child.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Reporting is an observer the command injects, not a place a record passes through. */
const NO_REPORTER: BackfillReporter = { event: () => undefined, stop: () => undefined };

type CallCounts = Map<string, number>;

/** Calls of every function of the project's own sources (src/, connectors/) during `work`, keyed by file and function offset. */
async function callsDuring(session: Session, work: () => Promise<void>): Promise<CallCounts> {
  await session.post('Profiler.takePreciseCoverage'); // resets the counters
  await work();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const counts: CallCounts = new Map();
  for (const script of result) {
    const file = projectFile(script.url);
    if (file === undefined) continue;
    for (const fn of script.functions) {
      const range: Profiler.CoverageRange | undefined = fn.ranges[0];
      if (range !== undefined && range.count > 0) counts.set(`${file}#${range.startOffset}`, range.count);
    }
  }
  return counts;
}

function projectFile(url: string): string | undefined {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const file = relative(ROOT, path.split('?')[0] ?? path);
  return /^(src|connectors)\//.test(file) && !file.endsWith('.test.ts') ? file : undefined;
}

/**
 * A barrel (`export … from` lines only) holds nothing a reader follows; vitest's module transform
 * still turns each re-exported name into a getter, which coverage would count as a call.
 */
function isBarrel(file: string): boolean {
  const code = readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  return code.split(';').every((statement) => statement.trim() === '' || /^export\s[\s\S]*\sfrom\s+'[^']+'$/.test(statement.trim()));
}

/** The files the README's record-path list names, in its order. */
function readmeRecordPath(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /<!-- record-path -->([\s\S]*?)<!-- \/record-path -->/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README.md has no <!-- record-path --> … <!-- /record-path --> block');
  return [...block.matchAll(/^\d+\. `([^`]+)`/gm)].map((match) => match[1] ?? '');
}

describe('the record path', () => {
  let session: Session;
  let small: SimulatorChild;
  let large: SimulatorChild;
  let dir: string;

  beforeAll(async () => {
    [small, large] = await Promise.all([startSimulatorChild({ calls: 100 }), startSimulatorChild({ calls: 300 })]);
    dir = await mkdtemp(join(tmpdir(), 'callsync-record-path-'));
    session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  });

  afterAll(async () => {
    await session.post('Profiler.stopPreciseCoverage');
    session.disconnect();
    await Promise.all([small.close(), large.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  async function backfill(upstream: SimulatorChild, name: string): Promise<void> {
    const sinkConfig: SinkConfig = { type: 'sqlite', path: join(dir, `${name}.db`) };
    const config = benchConfig(upstream, sinkConfig, { streams: ['calls'], rateLimit: false, pageSize: 50, concurrency: 1 });
    const sink = await createSink(config.sink, { logger: silentLogger() });
    const outcomes = await runBackfill({ config, plans: planBusinesses(config), sink, reporter: NO_REPORTER }).finally(() => sink.close());
    expect(outcomes.flatMap((o) => o.streams.map((s) => s.result?.written))).toEqual([name.startsWith('small') ? 100 : 300]);
  }

  it('crosses the files the README lists, and no more', async () => {
    await backfill(small, 'small-warm'); // loads every module and runs what runs once per process
    const fewer = await callsDuring(session, () => backfill(small, 'small'));
    const more = await callsDuring(session, () => backfill(large, 'large'));
    // What runs more often for three times the records and pages is on the record's path; set-up runs as often for both.
    const onPath = new Set<string>();
    for (const [fn, count] of more) if (count > (fewer.get(fn) ?? 0)) onPath.add(fn.split('#')[0] ?? fn);
    const traced = [...onPath].filter((file) => !isBarrel(file)).sort();
    expect(traced).toContain('src/sync/sync-stream.ts');
    expect(traced).toEqual([...readmeRecordPath()].sort());
  });
});
