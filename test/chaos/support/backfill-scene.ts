import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Simulator, SimulatorOptions } from '../../../simulator/index.js';
import { configDocument, type ConfigOptions } from '../../integration/support/backfill-harness.js';
import { simulatorScene, type SimulatorScene } from '../../integration/support/simulator-scene.js';
import type { SecretScanner } from './secret-scanner.js';

/** A chaos backfill scenario's scene: its simulator's credentials registered with `scanner` before any output is collected. */
export function backfillScene(scanner: SecretScanner, label: string, options: SimulatorOptions): SimulatorScene {
  return simulatorScene(`chaos-${label}`, options, (simulator) => scanner.addSimulator(simulator));
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
