import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/index.js';
import { diffSqliteAgainstSimulator, EXACT_MIRROR, summarizeDiffs } from '../support/sqlite-mirror.js';
import { spawnRun, stopAll, waitFor, workspace, type RunProcess } from '../worker/harness.js';
import { countRows } from '../worker/measures.js';
import { hooksRunConfig, SECRETS } from './run-hooks.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

describe('callsync run when the sender loses webhooks', () => {
  const cleanup = cleanupSteps();

  it('still mirrors every call and voicemail exactly: polling is the safety net', async () => {
    const sim = await startSimulator({ businesses: 1, calls: 30, voicemails: 5, numbers: 2, rateLimit: { limit: 60, windowMs: 1000 } });
    const ws = workspace('hookdrops');
    const processes: RunProcess[] = [];
    cleanup.push(
      () => sim.close(),
      () => ws.cleanup(),
      () => stopAll(processes),
    );
    processes.push(spawnRun(ws.writeConfig(hooksRunConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '2s' }))));
    const url = await processes[0]!.url;
    // Half the deliveries never leave; the rest come late, twice, or out of order.
    sim.setWebhooks({
      url: `${url}/hooks`,
      secret: SECRETS,
      dropRate: 0.5,
      duplicateRate: 0.3,
      reorderRate: 0.3,
      reorderHoldMs: 300,
      delayMs: { min: 0, max: 200 },
    });
    await waitFor('the history', () => (countRows(ws.dbPath, 'calls') >= 30 ? true : undefined));

    for (let round = 0; round < 5; round++) {
      sim.addCalls('biz-1', 4);
      sim.addVoicemails('biz-1', 1);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await sim.webhooksSettled();
    const sender = sim.webhookCounters();
    expect(sender.dropped).toBeGreaterThan(0);
    expect(sender.byStatus['202'] ?? 0).toBeGreaterThan(0);

    // Late updates and deletions reach the sink through the revisit walk and reconciliation (chaos late-updates,
    // worker/reconcile-run), never through a webhook; here they raced the first sync of the call they changed.
    await waitFor(
      'an exact mirror',
      () => {
        const diffs = summarizeDiffs(diffSqliteAgainstSimulator(ws.dbPath, sim, ['calls', 'voicemails']));
        return diffs['biz-1/calls'] === EXACT_MIRROR && diffs['biz-1/voicemails'] === EXACT_MIRROR ? diffs : undefined;
      },
      90_000,
      500,
    );
    expect(processes[0]!.child.exitCode).toBeNull();
  });
});
