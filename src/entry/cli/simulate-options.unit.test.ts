import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { cursorsArg, describeSwitches, recordingBytesArg, recordingsRateArg, toSimulatorOptions, type SimulateFlags } from './simulate-options.js';

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

describe('simulate recordings flags', () => {
  it('takes a size or a range, and refuses anything else naming both forms', () => {
    expect(recordingBytesArg('65536')).toBe(65_536);
    expect(recordingBytesArg('4096-8192')).toEqual({ min: 4096, max: 8192 });
    expect(() => recordingBytesArg('big')).toThrow('expected bytes per recording (65536) or a range (4096-65536)');
  });

  it('passes size, expiry, budget, ports and redirect to the simulator and lists them among the switches', () => {
    const options = toSimulatorOptions({
      ...FLAGS,
      recordingBytes: { min: 10, max: 20 },
      recordingLinkTtlMs: 5000,
      recordingsRateLimit: 30,
      recordingsPort: 4011,
      recordingsOnOwnPort: true,
      providerRedirect: true,
    });
    expect(options.recordings).toEqual({ size: { min: 10, max: 20 }, linkTtlMs: 5000, providerRedirect: true, rateLimit: { limit: 30, windowMs: 60_000 } });
    expect([options.recordingsPort, options.recordingsOnOwnPort]).toEqual([4011, true]);
    expect(describeSwitches(options)).toContain('recordings.linkTtlMs=5000');
    expect(toSimulatorOptions({ ...FLAGS, recordingsRateLimit: recordingsRateArg('api') }).recordings).toEqual({ rateLimit: 'api' });
    expect(toSimulatorOptions(FLAGS).recordings).toBeUndefined();
    // Beside a fixed API port the second port is fixed too, so provider links stay the same between runs.
    expect(toSimulatorOptions(FLAGS).recordingsPort).toBe(4011);
    expect(toSimulatorOptions({ ...FLAGS, port: 0 }).recordingsPort).toBeUndefined();
    const fixed = toSimulatorOptions({ ...FLAGS, recordingsBaseUrl: 'https://media.example', providerBaseUrl: 'https://provider.example' });
    expect([fixed.recordingsBaseUrl, fixed.providerBaseUrl]).toEqual(['https://media.example', 'https://provider.example']);
  });
});
