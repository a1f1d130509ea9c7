import type { ChildProcess } from 'node:child_process';
import type { UpstreamInfo } from './bench-config.js';
import { firstLine, spawnTsx, stopChild } from './child-process.js';

export interface SimulatorChild extends UpstreamInfo {
  readonly process: ChildProcess;
  close(): Promise<void>;
}

/**
 * `callsync simulate --json` in its own process, no rate limit: its CPU and memory stay out of
 * the process being measured, as a real upstream would.
 */
export async function startSimulatorChild(options: {
  calls: number;
  businesses?: number;
  seed?: number;
  /** More `callsync simulate` flags (`--recording-bytes 1048576-16777216`). @defaultValue none */
  flags?: readonly string[];
}): Promise<SimulatorChild> {
  const child = spawnTsx('src/entry/cli/main.ts', [
    'simulate',
    '--json',
    '--port',
    '0',
    '--no-rate-limit',
    '--businesses',
    String(options.businesses ?? 1),
    '--calls',
    String(options.calls),
    '--voicemails',
    '0',
    '--numbers',
    '1',
    '--seed',
    String(options.seed ?? 1),
    ...(options.flags ?? []),
  ]);
  try {
    // Generating a million calls takes a while before the port opens.
    const info = JSON.parse(await firstLine(child, 180_000)) as UpstreamInfo;
    return { ...info, process: child, close: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}
