import { readFileSync } from 'node:fs';
import { Session, type Profiler } from 'node:inspector/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SinkConfig } from '../../../connectors/registry.js';
import type { BackfillReporter } from '../../../src/entry/cli/backfill/reporter.js';
import { runBackfill } from '../../../src/entry/cli/backfill/run-backfill.js';
import type { Sink } from '../../../src/sink/sink.js';
import { planBusinesses } from '../../../src/engine/sync/plan-businesses.js';
import { benchConfig } from '../../support/bench-config.js';
import { startSimulatorChild, type SimulatorChild } from '../../support/simulator-child.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Reporting is an observer the command injects, not a place a record passes through. */
const NO_REPORTER: BackfillReporter = { event: () => undefined, stop: () => undefined };

/**
 * `callsync backfill` of the upstream's calls stream, in pages of 50 and one stream at a time,
 * into the sink `open` makes of the validated `sink:` section (closed after). Answers the
 * records written.
 */
export async function backfillCalls(upstream: SimulatorChild, sinkConfig: SinkConfig, open: (config: SinkConfig) => Promise<Sink>): Promise<number> {
  const config = benchConfig(upstream, sinkConfig, { streams: ['calls'], rateLimit: false, pageSize: 50, concurrency: 1 });
  const sink = await open(config.sink);
  const outcomes = await runBackfill({ config, plans: planBusinesses(config), sink, reporter: NO_REPORTER }).finally(() => sink.close());
  return outcomes.flatMap((outcome) => outcome.streams).reduce((sum, stream) => sum + (stream.result?.written ?? 0), 0);
}

/** Calls of each function of the project's own sources (src/, connectors/), keyed by `file#offset`. */
type CallCounts = Map<string, number>;

/**
 * The project files one record's path crosses, for `backfill` (one backfill of the upstream's
 * calls, answering the records written, by its run's name): a warm-up of 100 calls loads every
 * module and runs what runs once per process, then 100 and 300 calls from simulator children
 * (out of this process, so their code is not counted) with V8 coverage on.
 */
export async function traceRecordPath(backfill: (upstream: SimulatorChild, run: string) => Promise<number>): Promise<string[]> {
  const [small, large] = await Promise.all([startSimulatorChild({ calls: 100 }), startSimulatorChild({ calls: 300 })]);
  const coverage = new PathCoverage();
  const run = async (upstream: SimulatorChild, name: string, calls: number): Promise<void> => {
    const written = await backfill(upstream, name);
    if (written !== calls) throw new Error(`backfill ${name} wrote ${written} records, not ${calls}`);
  };
  try {
    // On before the path's code first runs, as the warm-up is what compiles it.
    await coverage.start();
    await run(small, 'small-warm', 100);
    return await coverage.filesOnPath(
      () => run(small, 'small', 100),
      () => run(large, 'large', 300),
    );
  } finally {
    await coverage.stop();
    await Promise.all([small.close(), large.close()]);
  }
}

/** V8's precise call counts over this process, for telling a record's path from set-up. */
class PathCoverage {
  readonly #session = new Session();

  async start(): Promise<void> {
    this.#session.connect();
    await this.#session.post('Profiler.enable');
    await this.#session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  }

  /** Safe to call when `start` failed or never ran. */
  async stop(): Promise<void> {
    await this.#session.post('Profiler.stopPreciseCoverage').catch(() => undefined);
    this.#session.disconnect();
  }

  /**
   * The project files (barrels left out) with a function that ran more often during `more` than
   * during `fewer`: what runs more often for more records and pages is on a record's path, while
   * set-up runs as often for both.
   */
  async filesOnPath(fewer: () => Promise<void>, more: () => Promise<void>): Promise<string[]> {
    const few = await this.#callsDuring(fewer);
    const many = await this.#callsDuring(more);
    const onPath = new Set<string>();
    for (const [fn, count] of many) if (count > (few.get(fn) ?? 0)) onPath.add(fn.split('#')[0] ?? fn);
    return [...onPath].filter((file) => !isBarrel(file)).sort();
  }

  async #callsDuring(work: () => Promise<void>): Promise<CallCounts> {
    await this.#session.post('Profiler.takePreciseCoverage'); // resets the counters
    await work();
    const { result } = await this.#session.post('Profiler.takePreciseCoverage');
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
}

function projectFile(url: string): string | undefined {
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  const file = relative(ROOT, path.split('?')[0] ?? path);
  return /^(src|connectors|simulator)\//.test(file) && !file.endsWith('.test.ts') ? file : undefined;
}

/**
 * A barrel (`export … from` lines only) holds nothing a reader follows; vitest's module transform
 * still turns each re-exported name into a getter, which coverage would count as a call.
 */
function isBarrel(file: string): boolean {
  const code = readFileSync(join(ROOT, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
  return code.split(';').every((statement) => statement.trim() === '' || /^export\s[\s\S]*\sfrom\s+'[^']+'$/.test(statement.trim()));
}

/** The page that lists each path, and the paths' numbers, in prose the tests read. */
const PATH_DOC = 'docs/architecture.md';

/** The files a path list of docs/architecture.md (`<!-- name -->` … `<!-- /name -->`, numbered lines) names, in its order. */
export function readmePath(name: string): string[] {
  const readme = readFileSync(join(ROOT, PATH_DOC), 'utf8');
  const block = new RegExp(`<!-- ${name} -->([\\s\\S]*?)<!-- /${name} -->`).exec(readme)?.[1];
  if (block === undefined) throw new Error(`${PATH_DOC} has no <!-- ${name} --> … <!-- /${name} --> block`);
  return [...block.matchAll(/^\d+\. `([^`]+)`/gm)].map((match) => match[1] ?? '');
}
