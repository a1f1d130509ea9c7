import { join } from 'node:path';
import type { CliBuild } from '../integration/support/cli-build.js';
import type { UpstreamInfo } from '../support/bench-config.js';
import { firstLine, spawnNode, stopChild } from '../support/child-process.js';

/** The fields every memory child reports (`memory-child-runner.ts`); a figure adds the ones its child chose. */
export interface MemoryChildReport {
  readonly records: number;
  readonly seconds: number;
  readonly failures: readonly string[];
  readonly startRss: number;
  readonly peakRss: number;
  readonly vmHwm?: number;
}

/**
 * Runs `test/bench/<name>.js` of a compiled build (`node` with the flags callsync ships with, as a
 * user's process runs `dist/`; under `--import tsx` the loader thread, the compiled sources and their
 * source maps add about 60 MB) with `<upstream JSON> ...args`, and returns the JSON line it prints.
 * The child is stopped however it ends.
 */
export async function measureInChild<Report extends MemoryChildReport>(
  build: CliBuild,
  name: string,
  upstream: UpstreamInfo,
  args: readonly string[],
  timeoutMs = 600_000,
): Promise<Report> {
  // Only the endpoint: a simulator child's handle (its process, close) is no part of it.
  const endpoint: UpstreamInfo = {
    baseUrl: upstream.baseUrl,
    v2BaseUrl: upstream.v2BaseUrl,
    recordingsBaseUrl: upstream.recordingsBaseUrl,
    businesses: upstream.businesses,
  };
  const child = spawnNode(join(build.root, 'test/bench', `${name}.js`), [JSON.stringify(endpoint), ...args]);
  try {
    return JSON.parse(await firstLine(child, timeoutMs)) as Report;
  } finally {
    await stopChild(child);
  }
}

/** The peak of a run: the larger of the sampled RSS and the kernel's high-water mark, which catches a peak between samples. */
export function peakOf(run: MemoryChildReport): number {
  return Math.max(run.peakRss, run.vmHwm ?? 0);
}
