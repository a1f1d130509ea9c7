import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { startFakeHubSpot } from '../../fakes/hubspot/index.js';
import { cleanupSteps } from '../support/cleanup-steps.js';
import { runConfig, spawnRun, startFleet, waitFor } from '../worker/harness.js';
import { upstreamRecordings } from './upstream-recordings.js';

const BASE = 'https://recordings.example.com/archive';

interface ArchivedRow {
  readonly business_id: string;
  readonly stream: string;
  readonly id: string;
  readonly recording_archive_key: string;
  readonly link_sent_at: string | null;
}

/** The archive's archived rows in the HubSpot sink's `state:` database; none while `run` has not created the table. */
function archivedRows(statePath: string): ArchivedRow[] {
  if (!existsSync(statePath)) return [];
  const db = new Database(statePath, { readonly: true, timeout: 10_000 });
  try {
    const found = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'recordings'").get();
    if (found === undefined) return [];
    return db
      .prepare("select business_id, stream, id, recording_archive_key, link_sent_at from recordings where recording_state = 'archived'")
      .all() as ArchivedRow[];
  } finally {
    db.close();
  }
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
    const resent = (): number =>
      run.logs.filter((line) => line.msg === 'calls written again with their archived recording links').reduce((sum, line) => sum + Number(line.resent), 0);
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
});
