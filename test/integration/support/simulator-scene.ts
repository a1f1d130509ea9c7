import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startSimulator, type Simulator, type SimulatorOptions } from '../../../simulator/index.js';

/** The simulator and scratch folder of a test file (or `describe` block), there from its `beforeAll` to its `afterAll`. */
export interface SimulatorScene {
  readonly simulator: Simulator;
  readonly directory: string;
  /** `mirror.db` in {@link directory}: where a backfill's SQLite sink goes, unless the test names another file. */
  readonly databasePath: string;
}

/**
 * Starts a simulator before the tests of the enclosing block, with a fresh scratch folder, and
 * closes it after them; `onStart` sees it first (chaos registers its credentials with the secret
 * scanner before any output is collected). Read the fields inside tests and hooks only.
 */
export function simulatorScene(label: string, options: SimulatorOptions, onStart?: (simulator: Simulator) => void): SimulatorScene {
  let started: SimulatorScene | undefined;
  beforeAll(async () => {
    const simulator = await startSimulator(options);
    onStart?.(simulator);
    const directory = mkdtempSync(join(tmpdir(), `callsync-${label}-`));
    started = { simulator, directory, databasePath: join(directory, 'mirror.db') };
  });
  afterAll(async () => {
    await started?.simulator.close();
  });
  const get = (): SimulatorScene => {
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
    get databasePath() {
      return get().databasePath;
    },
  };
}
