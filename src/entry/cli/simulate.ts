import type { Command } from 'commander';
import type { Simulator, SimulatorOptions } from '../../../simulator/index.js';
import { startSimulator } from '../../../simulator/index.js';
import type { SimulateFlags } from './simulate-options.js';
import { addSimulateOptions } from './simulate-flags.js';
import { describeSwitches, toSimulatorOptions } from './simulate-options.js';

/** Seams for tests: where output goes and which process signals stop the simulator. */
interface SimulateDeps {
  write: (text: string) => void;
  /** Called once listening; tests use it to reach and close the simulator. */
  onStarted?: (simulator: Simulator) => void;
  signals: NodeJS.Signals[];
}

const DEFAULT_DEPS: SimulateDeps = {
  write: (text) => process.stdout.write(text),
  signals: ['SIGINT', 'SIGTERM'],
};

function startupLine(sim: Simulator): string {
  return JSON.stringify({
    baseUrl: sim.baseUrl,
    v2BaseUrl: sim.v2BaseUrl,
    recordingsBaseUrl: sim.recordingsBaseUrl,
    businesses: sim.businesses.map(({ name, apiKey, v2Token, email, password }) => ({ name, apiKey, v2Token, email, password })),
  });
}

function summary(sim: Simulator, flags: SimulateFlags, options: SimulatorOptions): string {
  const switches = describeSwitches(options);
  const limit = flags.rateLimit === false ? 'off' : `${flags.rateLimit} per ${flags.rateWindowMs} ms`;
  const lines = [
    `call-tracking simulator listening`,
    `  v1:         ${sim.baseUrl}/api/v1/`,
    `  v2:         ${sim.v2BaseUrl}/api/all/voicemails, /api/all/calls`,
    `  recordings: ${sim.recordingsBaseUrl}/… (provider links: ${sim.recordingsHostUrl})`,
    `  rate limit: ${limit}; ${flags.calls} calls and ${flags.voicemails} voicemails per business (seed ${flags.seed})`,
    ...(switches.length === 0 ? [] : [`  switches:   ${switches.join(', ')}`]),
    ...sim.businesses.map((b) => `  ${b.name}: apiKey ${b.apiKey}  v2Token ${b.v2Token}  login ${b.email} / ${b.password}`),
    'Ctrl-C to stop.',
  ];
  return `${lines.join('\n')}\n`;
}

/** `callsync simulate`: the fake upstream for demos, tests and load rehearsal. */
export function registerSimulateCommand(program: Command, deps: SimulateDeps = DEFAULT_DEPS): void {
  addSimulateOptions(program.command('simulate').description('run a local fake of the call-tracking service (v1, v2, session login)')).action(
    async (flags: SimulateFlags) => {
      const options = toSimulatorOptions(flags);
      const sim = await startSimulator(options);
      deps.write(flags.json === true ? `${startupLine(sim)}\n` : summary(sim, flags, options));
      const stop = (): void => {
        for (const signal of deps.signals) process.off(signal, stop);
        void sim.close();
      };
      for (const signal of deps.signals) process.once(signal, stop);
      deps.onStarted?.(sim);
    },
  );
}
