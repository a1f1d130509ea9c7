import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { Command } from 'commander';
import { registerSimulateCommand } from '../../../src/entry/cli/simulate.js';
import type { Simulator } from '../../../simulator/index.js';

/** What `simulate --json` prints once listening. */
export interface SimulatorLine {
  readonly baseUrl: string;
  readonly v2BaseUrl: string;
  readonly recordingsBaseUrl: string;
  readonly businesses: ReadonlyArray<{ name: string; apiKey: string; v2Token: string }>;
}

export interface CliSimulator {
  readonly line: SimulatorLine;
  stop(): Promise<void>;
}

/** `npx tsx src/entry/cli/main.ts simulate --json --port 0 …` on the host, as an operator would start it. */
export async function startCliSimulator(args: readonly string[]): Promise<CliSimulator> {
  // Its own process group: npx → sh → tsx → node, and a signal to npx alone leaves the simulator running.
  const child: ChildProcess = spawn('npx', ['tsx', 'src/entry/cli/main.ts', 'simulate', '--json', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<SimulatorLine>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (text) => resolve(JSON.parse(text) as SimulatorLine));
    child.once('exit', (code) => reject(new Error(`simulate exited ${code} before listening: ${stderr.slice(0, 500)}`)));
  });
  return {
    line,
    async stop() {
      if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
}

/**
 * A second simulator in this process from the same flags, parsed by the same command: the data is
 * deterministic from the flags, so its `truth()` is the CLI simulator's ground truth.
 */
export async function twinSimulator(args: readonly string[]): Promise<Simulator> {
  let started: Simulator | undefined;
  const program = new Command().exitOverride();
  registerSimulateCommand(program, { write: () => undefined, signals: [], onStarted: (sim) => (started = sim) });
  await program.parseAsync(['simulate', '--port', '0', ...args], { from: 'user' });
  if (started === undefined) throw new Error('the twin simulator did not start');
  return started;
}
