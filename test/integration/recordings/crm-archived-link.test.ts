import { writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hubspotConfigSchema, type HubSpotConfig } from '../../../connectors/hubspot/config.js';
import { hubspotSinkFactory } from '../../../connectors/hubspot/index.js';
import { openRecordingState } from '../../../connectors/recordings/index.js';
import type { Sink } from '../../../src/sink/sink.js';
import { startFakeHubSpot, type FakeHubSpot } from '../../fakes/hubspot/index.js';
import { silentLogger } from '../../support/silent-logger.js';
import { inboundCall } from '../hubspot/harness.js';
import { callsTable } from '../sink-conformance/fixtures.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { postgresUrl, uniqueName } from '../services.js';

const A = 'acme';
const BASE = 'https://recordings.example.com/archive';
const records = [inboundCall(A, 'c1'), inboundCall(A, 'c2')];

describe('a CRM sink with recordings.publicBaseUrl, against the fake HubSpot portal', () => {
  let fake: FakeHubSpot;
  let dir: string;
  let config: HubSpotConfig;
  const sinks: Sink[] = [];

  beforeEach(async () => {
    fake = await startFakeHubSpot({ limits: { intervalMs: 300 } });
    dir = await mkdtemp(join(tmpdir(), 'callsync-crm-link-'));
    config = hubspotConfigSchema.parse({
      type: 'hubspot',
      token: fake.token,
      baseUrl: fake.baseUrl,
      state: { type: 'sqlite', path: join(dir, 'state.db') },
      associateContacts: false,
      retry: { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 200 },
    });
  });

  afterEach(async () => {
    for (const sink of sinks.splice(0)) await sink.close();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  });

  const open = async (recordingsBaseUrl?: string): Promise<Sink> => {
    const sink = await hubspotSinkFactory.create(config, { logger: silentLogger(), recordingsBaseUrl });
    sinks.push(sink);
    await sink.prepare([callsTable]);
    return sink;
  };
  const links = (): Map<string, string | undefined> =>
    new Map(fake.calls().map((call) => [call.properties.callsync_id ?? '', call.properties.hs_call_recording_url]));

  it('sends upstream’s link before the recording is archived, and the archived link on the next write once it is', async () => {
    const sink = await open(BASE);
    await sink.write({ businessId: A, table: callsTable, records, deadLetters: [] }, { cursor: 'p1' });
    expect(links()).toEqual(
      new Map([
        ['acme:calls:c1', 'https://calls.example.com/acct/recordings/main/c1.wav'],
        ['acme:calls:c2', 'https://calls.example.com/acct/recordings/main/c2.wav'],
      ]),
    );

    // The archive, keeping its state in the sink's state: database (as backfill --recordings does with a CRM sink), archives c1.
    const state = await openRecordingState(config, silentLogger());
    try {
      const now = new Date().toISOString();
      expect(await state.enqueue(A, { stream: 'calls', table: 'calls' }, now)).toBe(2);
      const [c1] = await state.pending(A, 10);
      expect(c1?.id).toBe('c1');
      if (c1 === undefined) return;
      await state.settle(c1, { state: 'archived', key: 'acme/calls/2024/03/c1.wav', sha256: 'a'.repeat(64), bytes: 10, contentType: 'audio/wav' }, now);
    } finally {
      await state.close();
    }

    await sink.write({ businessId: A, table: callsTable, records, deadLetters: [] }, { cursor: 'p2' });
    expect(links()).toEqual(
      new Map([
        ['acme:calls:c1', `${BASE}/acme/calls/2024/03/c1.wav`],
        ['acme:calls:c2', 'https://calls.example.com/acct/recordings/main/c2.wav'],
      ]),
    );

    // Without publicBaseUrl the archive is not served: upstream's link again.
    const plain = await open();
    await plain.write({ businessId: A, table: callsTable, records, deadLetters: [] }, { cursor: 'p3' });
    expect(links().get('acme:calls:c1')).toBe('https://calls.example.com/acct/recordings/main/c1.wav');
  });
});

describe('callsync backfill --recordings into HubSpot with recordings.publicBaseUrl', () => {
  const scene = simulatorScene('crm-resend', {
    businesses: 1,
    calls: 90,
    voicemails: 10,
    numbers: 2,
    seed: 34,
    rateLimit: false,
    recordings: { size: { min: 2_048, max: 4_096 } },
  });
  let fake: FakeHubSpot | undefined;
  afterEach(async () => fake?.close());

  type ArchivedRow = { business_id: string; stream: string; id: string; recording_archive_key: string };
  const ARCHIVED = `select business_id, stream, id, recording_archive_key from recordings where recording_state = 'archived'`;
  /** The `state:` database, and how the test reads the archive's rows from it afterwards. */
  const states: {
    name: string;
    state: (directory: string) => Record<string, unknown>;
    archived: (state: Record<string, unknown>) => Promise<ArchivedRow[]>;
  }[] = [
    {
      name: 'SQLite',
      state: (directory) => ({ type: 'sqlite', path: join(directory, 'state.db') }),
      archived: (state) => {
        const db = new Database(String(state.path), { readonly: true });
        try {
          return Promise.resolve(db.prepare(ARCHIVED).all() as ArchivedRow[]);
        } finally {
          db.close();
        }
      },
    },
    {
      name: 'Postgres',
      state: () => ({ type: 'postgres', url: postgresUrl, schema: uniqueName('crm_resend') }),
      archived: async (state) => {
        const client = new pg.Client({ connectionString: postgresUrl });
        await client.connect();
        try {
          await client.query(`set search_path to "${String(state.schema)}"`);
          const rows = (await client.query<ArchivedRow>(ARCHIVED)).rows;
          await client.query(`drop schema "${String(state.schema)}" cascade`);
          return rows;
        } finally {
          await client.end();
        }
      },
    },
  ];

  it.each(states)(
    'with a $name state: writes every call again once its recording is archived; the fake holds the archived link for each, one call object per call',
    async ({ name, state: stateOf, archived: archivedOf }) => {
      const { simulator, directory } = scene;
      fake = await startFakeHubSpot();
      const state = stateOf(join(directory, name));
      if (state.type === 'sqlite') await mkdir(join(directory, name), { recursive: true });
      const sink = { type: 'hubspot', token: fake.token, baseUrl: fake.baseUrl, state, associateContacts: false };
      const config = join(directory, `${name}.json`);
      const document = {
        // Pages of 20: the first pages reach HubSpot before any recording is archived.
        ...configDocument(simulator, '', { sink, streams: ['calls', 'voicemails'], pageSize: 20, rateLimit: false }),
        recordings: {
          archive: { type: 'folder', path: join(directory, name, 'archive') },
          publicBaseUrl: BASE,
          budget: { requestsPerMinute: 100_000, countAgainstApi: false },
        },
      };
      writeFileSync(config, JSON.stringify(document));
      const run = await runCli(['backfill', '--config', config, '--no-progress', '--recordings']);
      expect(run.code, run.stderr).toBe(0);

      const archived = await archivedOf(state);
      const [business] = simulator.businesses;
      const truth = simulator.truth(business?.name ?? '');
      const withRecording = [...truth.calls, ...truth.voicemails].filter((record) => typeof record.expected.recording_url === 'string');
      // Every recording was served, so each is archived: the check below cannot pass on a few.
      expect(archived).toHaveLength(withRecording.length);
      expect(archived.length).toBeGreaterThan(50);

      const calls = fake.calls();
      expect(calls).toHaveLength(truth.calls.length + truth.voicemails.length);
      expect(new Set(calls.map((call) => call.properties.callsync_id)).size).toBe(calls.length);
      const byKey = new Map(calls.map((call) => [call.properties.callsync_id ?? '', call.properties.hs_call_recording_url]));
      for (const row of archived) expect(byKey.get(`${row.business_id}:${row.stream}:${row.id}`), row.id).toBe(`${BASE}/${row.recording_archive_key}`);
    },
  );
});
