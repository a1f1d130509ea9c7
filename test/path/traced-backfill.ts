import { createSink, type SinkConfig } from '../../connectors/registry.js';
import type { BackfillReporter } from '../../src/entry/cli/backfill/reporter.js';
import { runBackfill } from '../../src/entry/cli/backfill/run-backfill.js';
import { planBusinesses } from '../../src/engine/sync/plan-businesses.js';
import type { JsonObject, Sink } from '../../src/sink/sink.js';
import { benchConfig } from '../support/bench-config.js';
import { silentLogger } from '../support/silent-logger.js';
import { startSimulatorChild } from '../support/simulator-child.js';
import { pagesBetweenCuts } from './stage-trace.js';
import { recorder } from './trace-recorder.js';

/** Reporting is an observer the test injects (test code, not traced), not a place a record passes through. */
const NO_REPORTER: BackfillReporter = { event: () => undefined, stop: () => undefined };

/** Records per page, and pages in a run: enough pages that the steady ones (all but the first) are several. */
export const PAGE_SIZE = 50;
const PAGES = 6;

/**
 * `sink` whose writes cut the trace: a page ends when the write that moves the checkpoint past it
 * settles (a page written in parts moves it once, with its last part).
 */
function cuttingWrites(sink: Sink): Sink {
  let position = '';
  const write: Sink['write'] = async (batch, next: JsonObject) => {
    const result = await sink.write(batch, next);
    const moved = JSON.stringify(next);
    if (moved !== position) recorder.cut();
    position = moved;
    return result;
  };
  return new Proxy(sink, {
    get(target, key) {
      if (key === 'write') return write;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * `callsync backfill` of the calls stream of one business (six pages of calls from a simulator
 * child, so the upstream's code is not traced), in pages of `pageSize` (50), into the sink the
 * `sink:` section names, through the registry as the command opens it. Answers the trace of every
 * page but the first, each as the files its functions were entered in, in order.
 */
export async function tracedBackfill(sinkSection: Readonly<Record<string, unknown>>, pageSize = PAGE_SIZE): Promise<string[][]> {
  const calls = PAGES * pageSize;
  const upstream = await startSimulatorChild({ calls });
  try {
    const config = benchConfig(upstream, sinkSection as SinkConfig, { streams: ['calls'], rateLimit: false, pageSize, concurrency: 1 });
    const sink = await createSink(config.sink, { logger: silentLogger() });
    // Read-ahead off: with one page ahead, the next page's request and answer interleave with this page's write.
    const outcomes = await recorder
      .record(() => runBackfill({ config, plans: planBusinesses(config), sink: cuttingWrites(sink), reporter: NO_REPORTER, readAhead: 0 }))
      .finally(() => sink.close());
    const written = outcomes.flatMap((outcome) => outcome.streams).reduce((sum, stream) => sum + (stream.result?.written ?? 0), 0);
    if (written !== calls) throw new Error(`the backfill wrote ${written} records, not ${calls}: ${JSON.stringify(outcomes)}`);
    return pagesBetweenCuts(recorder.files, recorder.cuts);
  } finally {
    await upstream.close();
  }
}
