import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillOnce, type BackfillRun } from './backfill-once.js';
import { benchConfig, type UpstreamInfo } from '../support/bench-config.js';

/** What the sampler saw over the child's backfill, every 100 ms. */
interface MemoryReading {
  /** RSS once the module graph is loaded, before the backfill starts. */
  readonly startRss: number;
  readonly peakRss: number;
  /** The kernel's high-water mark (`VmHWM`), which catches a peak between two samples. */
  readonly vmHwm: number | undefined;
  readonly peakHeapUsed: number;
  readonly peakExternal: number;
  /** What the JavaScript side held at the sample of the peak RSS: the rest of the peak is native. */
  readonly atPeak: { readonly heapTotal: number; readonly heapUsed: number; readonly external: number; readonly arrayBuffers: number };
  /** Within one run, "flat" means the second half peaks no higher than the first. */
  readonly firstHalfMax: number;
  readonly secondHalfMax: number;
}

/** A name of `MemoryReading`: which measures a child reports, in its JSON line's order. */
type MemoryMeasure = keyof MemoryReading;

/** Arguments named `[…]` in a child's usage are optional. */
type Args<Names extends readonly string[]> = { readonly [K in keyof Names]: Names[K] extends `[${string}` ? string | undefined : string };

/** What one memory child states of its own; the runner does the rest. */
interface MemoryChild<Names extends readonly string[], Run extends BackfillRun> {
  /** The arguments after `<upstream JSON>`, as the usage message names them; `[…]` ones are optional. */
  readonly args: Names;
  /**
   * The measures of the JSON line, after the run's own fields and in this order (each figure's
   * details in bench-results.json carry exactly these).
   * @defaultValue ['startRss', 'peakRss', 'vmHwm']
   */
  readonly report?: readonly MemoryMeasure[];
  /** The work measured: sink set-up, backfill and teardown. Started once the sampler runs. */
  readonly backfill: (upstream: UpstreamInfo, args: Args<Names>) => Promise<Run>;
}

/**
 * The body of every `*-memory-child.ts`: reads `<upstream JSON> …args` from the command line, samples
 * this process's memory every 100 ms while the child's backfill runs, and prints one JSON line on
 * stdout (the run's fields, then the chosen measures) for the figure that spawned it
 * (`memory-child-spawn.ts`). The process then exits when its event loop drains.
 */
export async function runMemoryChild<const Names extends readonly string[], Run extends BackfillRun>(child: MemoryChild<Names, Run>): Promise<void> {
  const [upstreamJson, ...args] = process.argv.slice(2);
  const required = child.args.filter((name) => !name.startsWith('[')).length;
  if (upstreamJson === undefined || args.length < required)
    throw new Error(`usage: ${basename(process.argv[1] ?? 'memory-child')} <upstream JSON> ${child.args.join(' ')}`);
  const upstream = JSON.parse(upstreamJson) as UpstreamInfo;
  const sampler = startSampler();
  const run = await child.backfill(upstream, args as unknown as Args<Names>);
  const reading = sampler.stop();
  const measures = child.report ?? ['startRss', 'peakRss', 'vmHwm'];
  process.stdout.write(`${JSON.stringify({ ...run, ...Object.fromEntries(measures.map((measure) => [measure, reading[measure]])) })}\n`);
}

/** The common backfill of the memory rows: the calls stream into `sink`, no rate limit, one business at a time. */
export async function backfillCalls(upstream: UpstreamInfo, sink: SinkConfig): Promise<BackfillRun> {
  const { records, seconds, failures } = await backfillOnce(benchConfig(upstream, sink, { streams: ['calls'], rateLimit: false, concurrency: 1 }));
  // In the order the memory rows' details in bench-results.json have always had.
  return { records, seconds, failures };
}

function startSampler(): { stop(): MemoryReading } {
  const start = process.memoryUsage();
  let atPeak = start;
  let peakHeapUsed = 0;
  let peakExternal = 0;
  const samples: number[] = [];
  const timer = setInterval(() => {
    const usage = process.memoryUsage();
    samples.push(usage.rss);
    peakHeapUsed = Math.max(peakHeapUsed, usage.heapUsed);
    peakExternal = Math.max(peakExternal, usage.external);
    if (usage.rss > atPeak.rss) atPeak = usage;
  }, 100);
  return {
    stop() {
      clearInterval(timer);
      const half = Math.floor(samples.length / 2);
      return {
        startRss: start.rss,
        peakRss: atPeak.rss,
        vmHwm: highWaterMark(),
        peakHeapUsed,
        peakExternal,
        atPeak: { heapTotal: atPeak.heapTotal, heapUsed: atPeak.heapUsed, external: atPeak.external, arrayBuffers: atPeak.arrayBuffers },
        firstHalfMax: Math.max(...samples.slice(0, half), 0),
        secondHalfMax: Math.max(...samples.slice(half), 0),
      };
    },
  };
}

function highWaterMark(): number | undefined {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? undefined : Number(match[1]) * 1024;
}
