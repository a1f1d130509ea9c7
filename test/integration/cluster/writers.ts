import type { RunProcess } from '../worker/harness.js';

/** One stream run as a worker logged it: from its job's start to the stream's end. */
interface Run {
  readonly worker: number;
  readonly from: number;
  readonly to: number;
}

function timeOf(entry: Record<string, unknown>): number | undefined {
  if (typeof entry.time === 'number') return entry.time;
  if (typeof entry.time === 'string') return Date.parse(entry.time);
  return undefined;
}

/**
 * The stream runs of every worker ('sync done' lines), by `business/stream`, and the pairs from
 * different workers whose runs overlapped in time: two writers of one stream at once.
 */
export function streamRuns(workers: readonly RunProcess[]): { runs: Map<string, Run[]>; overlaps: string[] } {
  const runs = new Map<string, Run[]>();
  workers.forEach((process, worker) => {
    for (const entry of process.logs) {
      const to = timeOf(entry);
      if (entry.msg !== 'sync done' || to === undefined || typeof entry.durationMs !== 'number') continue;
      const key = `${String(entry.business)}/${String(entry.stream)}`;
      runs.set(key, [...(runs.get(key) ?? []), { worker, from: to - entry.durationMs, to }]);
    }
  });
  const overlaps: string[] = [];
  for (const [key, list] of runs) {
    for (const a of list) {
      for (const b of list) {
        if (a.worker < b.worker && a.from < b.to && b.from < a.to)
          overlaps.push(`${key}: worker ${a.worker} ${a.from}-${a.to}, worker ${b.worker} ${b.from}-${b.to}`);
      }
    }
  }
  return { runs, overlaps };
}
