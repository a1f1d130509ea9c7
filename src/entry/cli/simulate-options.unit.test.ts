import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { cursorsArg, describeSwitches, toSimulatorOptions, type SimulateFlags } from './simulate-options.js';

const FLAGS: SimulateFlags = {
  port: 4010,
  host: '127.0.0.1',
  businesses: 3,
  calls: 10,
  voicemails: 1,
  numbers: 1,
  seed: 1,
  rateLimit: 60,
  rateWindowMs: 60_000,
};

describe('simulate --cursors', () => {
  it('takes fresh or stable and names both when it refuses anything else', () => {
    expect(cursorsArg('stable')).toBe('stable');
    expect(cursorsArg('fresh')).toBe('fresh');
    expect(() => cursorsArg('sticky')).toThrow(new InvalidArgumentError('expected fresh or stable'));
  });

  it('passes the reading to the simulator and prints it among the switches only when it is not the default', () => {
    const stable = toSimulatorOptions({ ...FLAGS, cursors: 'stable' });
    expect(stable.cursors).toBe('stable');
    expect(describeSwitches(stable)).toContain('cursors=stable');
    expect(describeSwitches(toSimulatorOptions({ ...FLAGS, cursors: 'fresh' }))).not.toContainEqual(expect.stringContaining('cursors'));
    expect(toSimulatorOptions(FLAGS).cursors).toBeUndefined();
  });
});
