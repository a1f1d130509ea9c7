import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { describeSink } from '../../../connectors/registry.js';
import { sinkLockKey, StreamLeases } from '../../../src/engine/lease/stream-lease.js';
import { startFakeHubSpot } from '../../fakes/hubspot/index.js';
import { redisUrl } from '../services.js';
import { cleanupSteps } from '../support/cleanup-steps.js';
import { runCli } from '../support/cli-process.js';
import { runConfig, spawnRun, startFleet, waitFor, type RunProcess } from '../worker/harness.js';
import { archivedRows, type ArchivedRow } from './archived-rows.js';
import { upstreamRecordings } from './upstream-recordings.js';

const BASE = 'https://recordings.example.com/archive';

/** The `resent` of every `calls written again …` log line of a `run` process so far. */
function resentIn(run: RunProcess): number {
  return run.logs.filter((line) => line.msg === 'calls written again with their archived recording links').reduce((sum, line) => sum + Number(line.resent), 0);
}

// How soon the CRM gets the link is a timing figure: the test waits for the state, never times it.
describe('callsync run into HubSpot with recordings.publicBaseUrl', () => {
  const cleanup = cleanupSteps();

  it('writes each call again once its recording is archived: the fake portal holds the archived link, with no change upstream', async () => {
    const { sim, ws, processes } = await startFleet(
      'rec-crm-run',
      { businesses: 2, calls: 30, voicemails: 4, numbers: 1, rateLimit: false, recordings: { size: { min: 2_048, max: 4_096 } } },
      cleanup,
    );
    const fake = await startFakeHubSpot();
    cleanup.push(() => fake.close());
    const statePath = join(ws.dir, 'state.db');
    const sink = { type: 'hubspot', token: fake.token, baseUrl: fake.baseUrl, state: { type: 'sqlite', path: statePath }, associateContacts: false };
    const config = {
      ...runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '2s', sink }),
      recordings: {
        archive: { type: 'folder', path: join(ws.dir, 'archive') },
        publicBaseUrl: BASE,
        budget: { requestsPerMinute: 100_000, countAgainstApi: false },
      },
    };
    const run = spawnRun(ws.writeConfig(config));
    processes.push(run);

    const upstream = upstreamRecordings(sim);
    // Both kinds of link are in the scene, so the checks below cannot pass on an empty list.
    expect(upstream.filter(({ stream }) => stream === 'calls').length).toBeGreaterThan(20);
    expect(upstream.filter(({ stream }) => stream === 'voicemails').length).toBeGreaterThan(0);
    const resent = (): number => resentIn(run);
    const rows = await waitFor(
      'every recording archived, its archived link sent, and the rewrite logged',
      () => {
        const archived = archivedRows(statePath);
        const done = archived.length === upstream.length && archived.every((row) => row.link_sent_at !== null) && resent() >= archived.length;
        return done ? archived : undefined;
      },
      90_000,
      500,
    );

    const calls = fake.calls();
    expect(calls).toHaveLength(sim.businesses.reduce((sum, { name }) => sum + sim.truth(name).calls.length + sim.truth(name).voicemails.length, 0));
    expect(new Set(calls.map((call) => call.properties.callsync_id)).size).toBe(calls.length);
    const links = new Map(calls.map((call) => [call.properties.callsync_id ?? '', call.properties.hs_call_recording_url]));
    for (const row of rows) expect(links.get(`${row.business_id}:${row.stream}:${row.id}`), row.id).toBe(`${BASE}/${row.recording_archive_key}`);

    // The archive wrote them (the syncs read nothing new): each archived call exactly once, none twice.
    expect(resent()).toBe(rows.length);
    expect(run.logs.filter((line) => line.msg === 'recording failed')).toEqual([]);
    expect(run.child.exitCode).toBeNull();
  }, 300_000);

  it('leaves a stream whose lease another process holds, and writes its archived calls once a sync of it holds the lease', async () => {
    const { sim, ws, processes } = await startFleet(
      'rec-crm-busy',
      { businesses: 2, calls: 24, voicemails: 4, numbers: 1, rateLimit: false, recordings: { size: 2_048 } },
      cleanup,
    );
    const fake = await startFakeHubSpot();
    cleanup.push(() => fake.close());
    const statePath = join(ws.dir, 'state.db');
    const sink = { type: 'hubspot', token: fake.token, baseUrl: fake.baseUrl, state: { type: 'sqlite', path: statePath }, associateContacts: false };
    const configPath = ws.writeConfig({
      ...runConfig(sim, { prefix: ws.prefix, dbPath: ws.dbPath, every: '2s', sink }),
      recordings: {
        archive: { type: 'folder', path: join(ws.dir, 'archive') },
        publicBaseUrl: BASE,
        budget: { requestsPerMinute: 100_000, countAgainstApi: false },
      },
    });
    // Every call in HubSpot first, with no archive: upstream holds nothing new for run's syncs.
    const backfill = await runCli(['backfill', '--config', configPath, '--no-progress']);
    expect(backfill.code, backfill.stderr).toBe(0);

    // Another process (as a backfill would) holds biz-1's calls in this sink.
    const redis = new Redis(redisUrl);
    cleanup.push(async () => void (await redis.quit()));
    const holder = new StreamLeases({ redis, ttlMs: 60_000, command: 'backfill', onLost: () => undefined });
    cleanup.push(() => holder.release());
    const [busyBusiness] = sim.businesses;
    if (busyBusiness === undefined) throw new Error('the scene has businesses');
    expect(await holder.take([sinkLockKey(ws.prefix, describeSink(sink).lockName, busyBusiness.name, 'calls')])).toEqual(new Map());
    const held = (row: ArchivedRow): boolean => row.business_id === busyBusiness.name && row.stream === 'calls';

    const run = spawnRun(configPath);
    processes.push(run);
    const upstream = upstreamRecordings(sim);
    expect(upstream.filter((recording) => recording.business === busyBusiness.name && recording.stream === 'calls').length).toBeGreaterThan(5);
    await waitFor(
      'every recording archived, and every link sent but those of the stream held',
      () => {
        const archived = archivedRows(statePath);
        return archived.length === upstream.length && archived.every((row) => held(row) || row.link_sent_at !== null) ? true : undefined;
      },
      90_000,
      500,
    );
    const left = archivedRows(statePath).filter(held);
    expect(left.length).toBeGreaterThan(5);
    expect(left.every((row) => row.link_sent_at === null)).toBe(true);
    const before = new Map(fake.calls().map((call) => [call.properties.callsync_id ?? '', call.properties.hs_call_recording_url]));
    expect(left.filter((row) => before.get(`${row.business_id}:${row.stream}:${row.id}`) === `${BASE}/${row.recording_archive_key}`)).toEqual([]);

    // Freed: the next sync of the stream takes its lease and writes what the archive left before it frees it.
    await holder.release();
    const rows = await waitFor(
      'the held stream’s archived links sent',
      () => {
        const archived = archivedRows(statePath);
        return archived.every((row) => row.link_sent_at !== null) && resentIn(run) >= archived.length ? archived : undefined;
      },
      90_000,
      500,
    );
    const links = new Map(fake.calls().map((call) => [call.properties.callsync_id ?? '', call.properties.hs_call_recording_url]));
    for (const row of rows) expect(links.get(`${row.business_id}:${row.stream}:${row.id}`), row.id).toBe(`${BASE}/${row.recording_archive_key}`);
    expect(resentIn(run)).toBe(rows.length);
  }, 300_000);
});
