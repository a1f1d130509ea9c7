import { describe, expect, it } from 'vitest';
import { type Simulator } from '../../../simulator/index.js';
import { runConfig, spawnRun, startFleet, waitFor, type RunConfigOptions } from './harness.js';
import { countRows } from './measures.js';
import { runCli } from '../support/cli-process.js';
import { deleteByHand, storedCalls } from '../support/sqlite-mirror.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

interface CallsStatus {
  state: string;
  difference: number | null;
  warning: string | null;
}

const upstreamIds = (sim: Simulator): string[] =>
  sim
    .truth('biz-1')
    .calls.map((c) => String(c.id))
    .sort();

describe('callsync run: reconciliation with no operator', () => {
  const cleanup = cleanupSteps();

  async function start(label: string, options: Partial<RunConfigOptions> = {}, history = 60) {
    const { sim, ws, processes } = await startFleet(
      label,
      { businesses: 1, calls: history, voicemails: 5, numbers: 3, rateLimit: { limit: 100, windowMs: 1000 } },
      cleanup,
    );
    const config = ws.writeConfig(runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '1s', ...options }));
    const worker = spawnRun(config);
    processes.push(worker);
    const url = await worker.url;
    const calls = async (): Promise<CallsStatus | undefined> => {
      const status = (await (await fetch(`${url}/status`)).json()) as { businesses: Array<{ streams: Array<CallsStatus & { stream: string }> }> };
      return status.businesses[0]?.streams.find((s) => s.stream === 'calls');
    };
    await waitFor('the history', async () => (countRows(ws.dbPath, 'calls') >= history && (await calls())?.difference === 0 ? true : undefined));
    return { sim, ws, worker, url, calls, config };
  }

  it('finds rows deleted by hand and calls deleted upstream after a run and repairs both', async () => {
    // Deletions wait for a second whole walk deleteAfter later: 1 ms here, so the next drifting run's walk.
    const { sim, ws, worker, url, calls } = await start('recon-run', { reconcile: { deleteAfter: '1ms' } });
    const goneUpstream = upstreamIds(sim).slice(20, 22);
    deleteByHand(ws.dbPath, 'biz-1', upstreamIds(sim).slice(5, 8));
    sim.deleteCalls('biz-1', goneUpstream);

    await waitFor('the mirror to be exact again', () => {
      const stored = storedCalls(ws.dbPath, 'biz-1');
      return stored.live.join() === upstreamIds(sim).join() && stored.deleted.length === 2 ? stored : undefined;
    });
    expect(storedCalls(ws.dbPath, 'biz-1').deleted).toEqual(goneUpstream);
    // The worker's log reaches us through its stdout in batches, up to 250 ms after the rows changed.
    const drift = await waitFor('the drift to be logged', () => worker.logs.find((line) => line.msg === 'drift: the sink and upstream disagree'));
    expect(drift).toMatchObject({ business: 'biz-1', stream: 'calls', stored: 57, upstream: 58, difference: 1 });
    const repaired = await waitFor('the repair to be logged', () => worker.logs.find((line) => line.msg === 'drift repaired'));
    expect(repaired).toMatchObject({ markedDeleted: 2, difference: 0 });
    // The first walk stored what was missing and kept the two it missed for the second walk.
    expect(worker.logs.find((line) => line.msg === 'drift remains after repair')).toMatchObject({ written: 3, markedDeleted: 0, pendingDeletions: 2 });
    await waitFor('the status to show it exact', async () => ((await calls())?.state === 'idle' ? true : undefined));
    expect(await calls()).toMatchObject({ difference: 0, warning: null });
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('callsync_reconcile_difference{business="biz-1",stream="calls"} 0');
    // The daily full walk is not run at start beside the first syncs: BullMQ's immediate run is deferred.
    expect(worker.logs.filter((line) => typeof line.msg === 'string' && line.msg.startsWith('full reconciliation'))).toEqual([]);
  });

  it('with reconcile.repair false, shows drift on the status page and in the metric, and changes nothing', async () => {
    const { sim, ws, url, calls } = await start('recon-norepair', { reconcile: { repair: false } });
    deleteByHand(ws.dbPath, 'biz-1', upstreamIds(sim).slice(0, 4));
    const status = await waitFor('drift', async () => {
      const now = await calls();
      return now?.state === 'drift' ? now : undefined;
    });
    expect(status).toMatchObject({ difference: 4 });
    expect(status.warning).toMatch(/upstream has 60, the sink 56 \(4 missing from the sink\)/);
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('callsync_reconcile_difference{business="biz-1",stream="calls"} 4');
    expect(await (await fetch(`${url}/`)).text()).toContain('drift');
    expect(countRows(ws.dbPath, 'calls')).toBe(56);
  });

  it('the scheduled full reconciliation finds what counts cannot see (one missing, one extra) and repairs it', async () => {
    const { sim, ws, worker } = await start('recon-full', { reconcile: { every: '2s', deleteAfter: '1ms' } });
    const missing = upstreamIds(sim)[30]!;
    const extra = upstreamIds(sim)[31]!;
    deleteByHand(ws.dbPath, 'biz-1', [missing]);
    sim.deleteCalls('biz-1', [extra]);
    await waitFor('the full reconciliation to repair it', () => {
      const stored = storedCalls(ws.dbPath, 'biz-1');
      return stored.live.includes(missing) && stored.deleted.includes(extra) ? true : undefined;
    });
    expect(storedCalls(ws.dbPath, 'biz-1')).toEqual({ live: upstreamIds(sim), deleted: [extra] });
    // `run` writes its log in batches (up to 250 ms): the line may come after the rows it tells of.
    const repairLine = await waitFor('the full reconciliation log line', () =>
      worker.logs.find((line) => line.msg === 'full reconciliation (repairing)' && line.written === 1),
    );
    expect(repairLine).toMatchObject({
      missing: 1,
      extra: 1,
      markedDeleted: 0,
      pendingDeletions: 1,
    });
    // Once the missing record is stored the counts see the extra one too, so the second walk that
    // marks it is the next full reconciliation or the drift's repair, whichever comes first.
    await waitFor('the log of the second walk', () => worker.logs.find((line) => line.markedDeleted === 1));
  });

  it('an upstream answering a third of each list marks nothing: drift says how many and how to confirm; confirmed, exactly those are marked; recovered, the repair restores them', async () => {
    // deleteAfter 1 ms: every drifting run walks again, so the guard is what stops the marking, not a wait.
    const { sim, ws, worker, url, calls, config } = await start('recon-shrunk', { pageSize: 100, reconcile: { deleteAfter: '1ms' } }, 600);
    const all = upstreamIds(sim);
    sim.setHostile({ listShare: 1 / 3 });
    const message = '400 records would be marked deleted (66.7 %); confirm with `callsync reconcile --repair --confirm-deletions`';
    const held = await waitFor('the held drift', async () => {
      const now = await calls();
      return now?.state === 'drift' && now.warning?.includes(message) === true ? now : undefined;
    });
    expect(held.difference).toBe(-400);
    // More runs and walks go by: still nothing marked.
    await waitFor('two more walks', () => (worker.logs.filter((line) => line.heldDeletions === 400).length >= 3 ? true : undefined));
    expect(storedCalls(ws.dbPath, 'biz-1')).toEqual({ live: all, deleted: [] });
    expect(worker.logs.filter((line) => typeof line.markedDeleted === 'number' && line.markedDeleted > 0)).toEqual([]);
    expect(await (await fetch(`${url}/`)).text()).toContain(message.replaceAll("'", '&#39;'));
    const status = await runCli(['status', '--config', config, '--json']);
    expect(status.stdout).toContain(JSON.stringify(message).slice(1, -1));
    // Calls show `syncing` while a run is under way, so the fix line is awaited, not read once.
    const fixLine = 'biz-1/calls drift: fix: check upstream really dropped them, then `callsync reconcile --repair --confirm-deletions`';
    await waitFor(
      'the fix in callsync status --all',
      async () => ((await runCli(['status', '--config', config, '--all'])).stdout.includes(fixLine) ? true : undefined),
      30_000,
      0,
    );
    // The default summary names the same fix under the drift it lists (numbers drifts too; calls may be mid-run).
    const summaryFix =
      /\ndrift \(\d\), e\.g\. biz-1\/(calls|numbers):\n {2}fix: check upstream really dropped them, then `callsync reconcile --repair --confirm-deletions`\n/;
    await waitFor('the fix in the summary', async () => (summaryFix.test((await runCli(['status', '--config', config])).stdout) ? true : undefined), 30_000, 0);

    const confirmed = await runCli(['reconcile', '--config', config, '--stream', 'calls', '--repair', '--confirm-deletions', '--json']);
    expect(confirmed.code).toBe(0);
    const listed = new Set(all.filter((_, i) => i % 3 === 2));
    expect(storedCalls(ws.dbPath, 'biz-1')).toEqual({ live: all.filter((id) => listed.has(id)), deleted: all.filter((id) => !listed.has(id)) });
    await waitFor('the status to show it exact', async () => ((await calls())?.state === 'idle' ? true : undefined));

    sim.setHostile({ listShare: 1 });
    await waitFor('the marked calls to be restored', () => {
      const stored = storedCalls(ws.dbPath, 'biz-1');
      return stored.live.join() === all.join() && stored.deleted.length === 0 ? true : undefined;
    });
    await waitFor('the status to show it exact', async () => ((await calls())?.state === 'idle' ? true : undefined));
  });
});
