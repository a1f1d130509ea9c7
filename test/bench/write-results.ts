import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import type { BenchRow } from './result.js';

export interface BenchReport {
  readonly mode: 'quick' | 'full';
  readonly startedAt: string;
  readonly seconds: number;
  readonly rows: readonly BenchRow[];
}

/** The machine the numbers came from: they mean little without it. */
export function machine(): Record<string, unknown> {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    totalMemGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** `bench-results.json` (gitignored): every row with the numbers behind it. */
export async function writeResults(path: string, report: BenchReport): Promise<void> {
  await writeFile(path, `${JSON.stringify({ ...report, machine: machine() }, null, 2)}\n`);
}
