import { describe, expect, it } from 'vitest';
import { startSimulator } from '../../../simulator/index.js';
import { startFakeHubSpot, type ArchivedUniqueValue, type FakeHubSpot } from '../../fakes/hubspot/index.js';
import { runCli } from '../support/cli-process.js';
import { storedCalls } from '../support/sqlite-mirror.js';
import { runConfig, workspace } from '../worker/harness.js';
import { cleanupSteps } from '../support/cleanup-steps.js';

/** The record ids of HubSpot's live calls, with how many live calls each has. */
function liveCallsPerRecord(hubspot: FakeHubSpot): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of hubspot.calls()) {
    const id = (call.properties.callsync_id ?? '').replace('biz-1:calls:', '');
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

// Issue 18's scenario into HubSpot, by the commands an operator runs: an upstream answering a third
// of each list, deletions confirmed anyway, then recovery. HubSpot documents neither an API to
// restore an archived call nor whether it keeps its unique value: each reading must end exact.
describe.each<ArchivedUniqueValue>(['held', 'freed'])(
  'a shrunken list confirmed into HubSpot, then recovered (archived unique value %s)',
  (archivedUniqueValue) => {
    const cleanup = cleanupSteps();

    it('archives nothing unconfirmed, exactly the unlisted calls when confirmed, and ends with one live call per record', async () => {
      const sim = await startSimulator({ businesses: 1, calls: 600, voicemails: 2, numbers: 3, rateLimit: false });
      const hubspot = await startFakeHubSpot({ readings: { archivedUniqueValue } });
      const ws = workspace(`hubspot-shrunk-${archivedUniqueValue}`);
      cleanup.push(
        () => sim.close(),
        () => hubspot.close(),
        () => ws.cleanup(),
      );
      const sink = { type: 'hubspot', token: hubspot.token, baseUrl: hubspot.baseUrl, associateContacts: false, state: { type: 'sqlite', path: ws.dbPath } };
      const document = runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, pageSize: 100, sink });
      // HubSpot takes calls; numbers would only become dead letters.
      const config = ws.writeConfig({ ...document, businesses: (document.businesses as object[]).map((business) => ({ ...business, streams: ['calls'] })) });
      const backfill = await runCli(['backfill', '--config', config, '--no-progress']);
      expect(backfill.code, backfill.stderr).toBe(0);
      const all = sim
        .truth('biz-1')
        .calls.map((call) => String(call.id))
        .sort();
      expect([...liveCallsPerRecord(hubspot).keys()].sort()).toEqual(all);

      sim.setHostile({ listShare: 1 / 3 });
      expect((await runCli(['reconcile', '--config', config, '--repair'])).code).toBe(1);
      expect(hubspot.archivedCalls()).toEqual([]);
      expect((await runCli(['reconcile', '--config', config, '--repair', '--confirm-deletions'])).code).toBe(0);
      expect(hubspot.archivedCalls()).toHaveLength(400);
      expect(hubspot.calls()).toHaveLength(200);

      sim.setHostile({ listShare: 1 });
      const repaired = await runCli(['reconcile', '--config', config, '--repair']);
      expect(repaired.code, repaired.stderr).toBe(0);
      const live = liveCallsPerRecord(hubspot);
      expect([...live.keys()].sort()).toEqual(all);
      expect([...live.values()].every((count) => count === 1)).toBe(true);
      expect(storedCalls(ws.dbPath, 'biz-1')).toEqual({ live: all, deleted: [] });
      const letters = await runCli(['dead-letters', 'list', '--config', config]);
      expect(letters.stdout).not.toMatch(/recycling bin|Unique property/);
    });
  },
);
