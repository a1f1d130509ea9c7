import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../src/simulator/index.js';
import { configDocument, type ConfigOptions } from '../../integration/support/backfill-harness.js';
import type { SecretScanner } from './secret-scanner.js';

/** A backfill scenario file's simulator and scratch folder, there from its `beforeAll` to its `afterAll`. */
export interface BackfillScene {
  readonly simulator: Simulator;
  readonly directory: string;
}

/**
 * Starts the file's simulator before its tests, registers its credentials with `scanner` before
 * any output is collected, and closes it after them. Read the fields inside tests and hooks only.
 */
export function backfillScene(scanner: SecretScanner, label: string, options: SimulatorOptions): BackfillScene {
  let started: BackfillScene | undefined;
  beforeAll(async () => {
    const simulator = await startSimulator(options);
    scanner.addSimulator(simulator);
    started = { simulator, directory: mkdtempSync(join(tmpdir(), `callsync-chaos-${label}-`)) };
  });
  afterAll(async () => {
    await started?.simulator.close();
  });
  const get = (): BackfillScene => {
    if (started === undefined) throw new Error('the scene starts in beforeAll');
    return started;
  };
  return {
    get simulator() {
      return get().simulator;
    },
    get directory() {
      return get().directory;
    },
  };
}

/** Writes `callsync.json` in `directory` for a backfill of `simulator` into the SQLite file `<name>.db` beside it. */
export function writeBackfillConfig(
  directory: string,
  simulator: Simulator,
  name: string,
  options: ConfigOptions,
): { configPath: string; databasePath: string } {
  const databasePath = join(directory, `${name}.db`);
  const configPath = join(directory, 'callsync.json');
  writeFileSync(configPath, JSON.stringify(configDocument(simulator, databasePath, options)));
  return { configPath, databasePath };
}
