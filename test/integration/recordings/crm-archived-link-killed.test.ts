import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeHubSpot, type FakeHubSpot } from '../../fakes/hubspot/index.js';
import { configDocument } from '../support/backfill-harness.js';
import { killBackfillAfterPages, runCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { archivedRows } from './archived-rows.js';
import { upstreamRecordings } from './upstream-recordings.js';

const BASE = 'https://recordings.example.com/archive';

/** The `resent` of every `calls written again …` log line of a backfill's standard error. */
function resentIn(stderr: string): number {
  return stderr
    .split('\n')
    .filter((line) => line.includes('"msg":"calls written again with their archived recording links"'))
    .reduce((sum, line) => sum + Number((JSON.parse(line) as { resent?: unknown }).resent), 0);
}

describe('callsync backfill --recordings into HubSpot with publicBaseUrl, killed after archiving and before its end, then run again', () => {
  const scene = simulatorScene('crm-killed', {
    businesses: 1,
    calls: 120,
    voicemails: 10,
    numbers: 2,
    seed: 35,
    rateLimit: false,
    recordings: { size: { min: 2_048, max: 4_096 } },
  });
  let fake: FakeHubSpot | undefined;
  afterEach(async () => fake?.close());

  it('the rerun writes the calls the killed run archived, and its own: the fake holds every archived link, each call sent again once', async () => {
    const { simulator, directory } = scene;
    fake = await startFakeHubSpot();
    const statePath = join(directory, 'state.db');
    const sink = { type: 'hubspot', token: fake.token, baseUrl: fake.baseUrl, state: { type: 'sqlite', path: statePath }, associateContacts: false };
    const config = join(directory, 'callsync.json');
    const document = {
      // Pages of 20: the first pages reach HubSpot before any recording is archived.
      ...configDocument(simulator, '', { sink, streams: ['calls', 'voicemails'], pageSize: 20, rateLimit: false, logLevel: 'info' }),
      recordings: {
        archive: { type: 'folder', path: join(directory, 'archive') },
        publicBaseUrl: BASE,
        concurrency: 2,
        budget: { requestsPerMinute: 100_000, countAgainstApi: false },
      },
    };
    writeFileSync(config, JSON.stringify(document));

    const killed = await killBackfillAfterPages(config, 30, { args: ['--recordings'], after: 'recording archived' });
    // Killed in the middle of the archive: the end's rewrite never ran, so the CRM has upstream's link (or none) for these.
    expect(resentIn(killed.stderr())).toBe(0);
    const archivedBeforeKill = archivedRows(statePath);
    expect(archivedBeforeKill.length).toBeGreaterThanOrEqual(30);
    expect(archivedBeforeKill.every((row) => row.link_sent_at === null)).toBe(true);
    const before = new Map(fake.calls().map((call) => [call.properties.callsync_id ?? '', call.properties.hs_call_recording_url]));
    expect(archivedBeforeKill.filter((row) => before.get(`${row.business_id}:${row.stream}:${row.id}`) === `${BASE}/${row.recording_archive_key}`)).toEqual([]);

    const rerun = await runCli(['backfill', '--config', config, '--no-progress', '--recordings']);
    expect(rerun.code, rerun.stderr).toBe(0);

    const archived = archivedRows(statePath);
    const withRecording = upstreamRecordings(simulator);
    // Every recording was served, so each is archived: the check below cannot pass on a few.
    expect(archived).toHaveLength(withRecording.length);
    expect(archived.every((row) => row.link_sent_at !== null)).toBe(true);
    const calls = fake.calls();
    const [business] = simulator.businesses;
    const truth = simulator.truth(business?.name ?? '');
    expect(calls).toHaveLength(truth.calls.length + truth.voicemails.length);
    expect(new Set(calls.map((call) => call.properties.callsync_id)).size).toBe(calls.length);
    const links = new Map(calls.map((call) => [call.properties.callsync_id ?? '', call.properties.hs_call_recording_url]));
    for (const row of archived) expect(links.get(`${row.business_id}:${row.stream}:${row.id}`), row.id).toBe(`${BASE}/${row.recording_archive_key}`);
    // Each archived call written again exactly once over both runs: none lost with the killed run, none twice.
    expect(resentIn(rerun.stderr)).toBe(archived.length);
  }, 180_000);
});
