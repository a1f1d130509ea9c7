import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { runConfig, spawnRun, stopAll, waitFor, workspace, type RunProcess } from '../worker/harness.js';

describe('callsync run at log level info', () => {
  const ws = workspace('run-log');
  const processes: RunProcess[] = [];
  let simulator: Simulator | undefined;

  afterAll(async () => {
    await stopAll(processes);
    await simulator?.close();
    await ws.cleanup();
  });

  it('logs one line per sync run: business, stream, records, written, duration', async () => {
    simulator = await startSimulator({ businesses: 1, calls: 45, voicemails: 3, numbers: 2, rateLimit: false });
    const run = spawnRun(ws.writeConfig(runConfig(simulator, { prefix: ws.prefix, dbPath: ws.dbPath, every: '1s' })));
    processes.push(run);
    const line = await waitFor('a sync done line for biz-1 calls', () =>
      run.logs.find((entry) => entry.msg === 'sync done' && entry.business === 'biz-1' && entry.stream === 'calls' && entry.written === 45),
    );
    expect(line).toMatchObject({ level: 30, records: 45, written: 45 });
    expect(typeof line.durationMs).toBe('number');
    // The next scheduled run of the same stream logs too, with nothing new written.
    await waitFor('a second sync done line for biz-1 calls', () =>
      run.logs.find((entry) => entry.msg === 'sync done' && entry.business === 'biz-1' && entry.stream === 'calls' && entry.written === 0),
    );
  });
});
