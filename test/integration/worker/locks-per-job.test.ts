import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/index.js';
import { openMonitor, parseMonitorLine } from '../../support/redis-cost.js';
import { redisUrl } from '../services.js';
import { runConfig, spawnRun, stopAll, waitFor, workspace, type RunProcess } from './harness.js';

const STREAMS = ['calls', 'voicemails', 'numbers'];

describe('locks a run job takes', () => {
  const cleanup: Array<() => unknown> = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it('one lease per stream, all of a business taken in one script call per job, and no other lock', async () => {
    const sim = await startSimulator({ businesses: 2, calls: 30, voicemails: 5, numbers: 2, rateLimit: { limit: 60, windowMs: 1000 } });
    const ws = workspace('locks-per-job');
    const processes: RunProcess[] = [];
    cleanup.push(
      () => sim.close(),
      () => ws.cleanup(),
      () => stopAll(processes),
    );
    const monitor = await openMonitor(redisUrl);
    cleanup.push(() => monitor.close());
    // Every script call that names our lock keys, with the command its first inner line runs.
    const calls: Array<{ keys: string[]; first?: string }> = [];
    const touched = new Set<string>();
    const lockPrefix = `${ws.prefix}:lock:`;
    monitor.on('line', (line) => {
      const parsed = parseMonitorLine(line);
      if (parsed === undefined) return;
      const [name = '', ...rest] = parsed.args;
      const command = name.toLowerCase();
      if (parsed.source === 'lua') {
        const last = calls.at(-1);
        if (last !== undefined && last.first === undefined) last.first = command;
        if (rest[0]?.startsWith(lockPrefix) === true) touched.add(rest[0]);
        return;
      }
      // Any other lock-like key of ours (the queue's business × stream lock of older versions).
      for (const arg of rest)
        if (arg.startsWith(`${ws.prefix}:`) && !arg.startsWith(`${ws.prefix}:bull:`) && arg.slice(ws.prefix.length).includes('lock')) touched.add(arg);
      if (command === 'evalsha' && rest[2]?.startsWith(lockPrefix) === true) calls.push({ keys: rest.slice(2, 2 + Number(rest[1])) });
    });

    processes.push(spawnRun(ws.writeConfig(runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '2s' }))));
    const syncs = (business: string, stream: string): number =>
      processes[0]!.logs.filter((l) => l.msg === 'sync done' && l.business === business && l.stream === stream).length;
    // Four polls of each business (8 jobs) for at least 6 acquires seen: MONITOR interleaves two jobs' script lines
    // now and then, and a script whose first inner line went to the other job's call is not counted as an acquire.
    await waitFor('four polls of every stream', () => (sim.businesses.every((b) => STREAMS.every((s) => syncs(b.name, s) >= 4)) ? true : undefined), 60_000);
    await stopAll(processes);
    monitor.close();

    const acquires = calls.filter((c) => c.first === 'set');
    expect(acquires.length).toBeGreaterThanOrEqual(6);
    for (const { keys } of acquires) {
      const business = /:lock:[0-9a-f]{16}:([^:]+):/.exec(keys[0] ?? '')?.[1];
      expect(keys.map((k) => k.replace(/^.*:/, '')).sort()).toEqual([...STREAMS].sort());
      expect(keys.every((k) => k.includes(`:${business ?? '?'}:`))).toBe(true);
    }
    // One key per business × stream, nothing else that locks.
    expect(touched.size).toBe(sim.businesses.length * STREAMS.length);
    expect([...touched].every((k) => k.startsWith(lockPrefix))).toBe(true);
  });
});
