import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openObjectStore, type ObjectStore } from '../../../connectors/object-storage/index.js';
import { objectStoreConfigSchema } from '../../../connectors/object-storage/config.js';
import type { Simulator } from '../../../simulator/index.js';
import { startS3Server, type TestS3Server } from '../../support/s3-server.js';
import { configDocument } from '../support/backfill-harness.js';
import { killBackfillAfterPages, runCli } from '../support/cli-process.js';
import { simulatorScene } from '../support/simulator-scene.js';
import { upstreamRecordings } from './upstream-recordings.js';
import { postgresUrl, uniqueName } from '../services.js';

/** Records dated before this have links the simulator already refuses (403): they expired before the archive reached them. */
const CUTOFF = Date.parse('2025-04-01T00:00:00Z');
const CONCURRENCY = 3;
const scene = {
  businesses: 2,
  calls: 150,
  voicemails: 12,
  numbers: 2,
  seed: 33,
  rateLimit: false,
  recordings: { size: { min: 4_096, max: 24_576 }, linkTtlMs: Date.now() - CUTOFF },
} as const;

interface StateRow {
  readonly business_id: string;
  readonly stream: string;
  readonly id: string;
  readonly recording_state: string;
  readonly recording_archive_key: string | null;
  readonly recording_sha256: string | null;
  readonly recording_bytes: number | string | null;
}

async function sha256Of(store: ObjectStore, key: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of (await store.read(key)) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.byteLength;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/**
 * `backfill --recordings` killed with SIGKILL in the middle of the archive, then run again to its
 * end; `recordings status --json` counts what the table holds.
 */
async function killThenRerun(simulator: Simulator, directory: string, sink: Record<string, unknown>, archive: Record<string, unknown>) {
  const config = join(directory, 'callsync.json');
  const document = {
    ...configDocument(simulator, join(directory, 'mirror.db'), { sink, streams: ['calls', 'voicemails'], pageSize: 50, rateLimit: false, logLevel: 'info' }),
    recordings: {
      archive,
      concurrency: CONCURRENCY,
      budget: { requestsPerMinute: 100_000, countAgainstApi: false },
      retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 50 },
    },
  };
  writeFileSync(config, JSON.stringify(document));
  await killBackfillAfterPages(config, 40, { args: ['--recordings'], after: 'recording archived' });
  const rerun = await runCli(['backfill', '--config', config, '--no-progress', '--recordings']);
  expect(rerun.code, rerun.stderr).toBe(0);
  const status = await runCli(['recordings', 'status', '--config', config, '--json']);
  expect(status.code, status.stderr).toBe(0);
  return { rerun, status: JSON.parse(status.stdout) as { counts: { state: string; count: number }[] } };
}

/** What the exactness test checks, for any sink's state rows and any archive. */
async function expectArchivedOnce(simulator: Simulator, rows: readonly StateRow[], store: ObjectStore, status: { counts: { state: string; count: number }[] }) {
  const expected = upstreamRecordings(simulator);
  const served = expected.filter((recording) => recording.served.status === 200);
  const expired = expected.filter((recording) => recording.served.status === 403);
  // The scene holds both kinds, so neither half of the check can pass empty.
  expect(served.length).toBeGreaterThan(100);
  expect(expired.length).toBeGreaterThan(20);
  const byId = new Map(rows.map((row) => [`${row.business_id}/${row.stream}/${row.id}`, row]));
  expect(rows).toHaveLength(expected.length);
  for (const recording of served) {
    const row = byId.get(`${recording.business}/${recording.stream}/${recording.id}`);
    expect(row, recording.id).toMatchObject({ recording_state: 'archived', recording_sha256: recording.served.sha256 });
    expect(Number(row?.recording_bytes)).toBe(recording.served.bytes);
    // The object under the final key is the simulator's bytes, whole.
    expect(await sha256Of(store, row?.recording_archive_key ?? ''), recording.id).toEqual({ sha256: recording.served.sha256, bytes: recording.served.bytes });
  }
  for (const recording of expired) expect(byId.get(`${recording.business}/${recording.stream}/${recording.id}`)?.recording_state, recording.id).toBe('expired');
  // Exactly once: one object (and its checksum) per archived recording, no other key, no partial one.
  const keys: string[] = [];
  for await (const object of store.list('')) keys.push(object.key);
  const archivedKeys = rows.filter((row) => row.recording_state === 'archived').map((row) => row.recording_archive_key ?? '');
  expect(keys.filter((key) => !key.endsWith('.sha256')).sort()).toEqual([...archivedKeys].sort());
  expect(keys.filter((key) => key.endsWith('.sha256'))).toHaveLength(archivedKeys.length);
  const counted = Object.fromEntries(
    ['archived', 'expired', 'failed', 'pending'].map((state) => [state, status.counts.filter((c) => c.state === state).reduce((sum, c) => sum + c.count, 0)]),
  );
  expect(counted).toEqual({ archived: served.length, expired: expired.length, failed: 0, pending: 0 });
  const counters = simulator.counters().recordings;
  // Downloaded once each: only what was in flight when the process was killed is asked twice.
  expect(counters.byStatus['200'] ?? 0).toBeGreaterThanOrEqual(served.length);
  expect((counters.byStatus['200'] ?? 0) - served.length).toBeLessThanOrEqual(CONCURRENCY);
  expect(counters.withCredentials).toBe(0);
  expect(counters.foreignRequests).toBe(0);
}

describe('backfill --recordings into SQLite and a folder: kill -9 in the middle, rerun', () => {
  const local = simulatorScene('recordings-sqlite', scene);

  it('archives every recording exactly once, its SHA-256 the simulator’s, and marks the links that had expired', async () => {
    const { simulator, directory } = local;
    const path = join(directory, 'mirror.db');
    const archive = { type: 'folder', path: join(directory, 'archive') };
    const { status } = await killThenRerun(simulator, directory, { type: 'sqlite', path }, archive);
    const db = new Database(path, { readonly: true });
    const rows = db.prepare('select * from recordings').all() as StateRow[];
    db.close();
    const store = await openObjectStore(objectStoreConfigSchema.parse(archive));
    try {
      await expectArchivedOnce(simulator, rows, store, status);
    } finally {
      await store.close();
    }
  });
});

describe('backfill --recordings into Postgres and an S3-compatible bucket: kill -9 in the middle, rerun', () => {
  const remote = simulatorScene('recordings-postgres', scene);
  let server: TestS3Server;
  beforeAll(async () => {
    server = await startS3Server();
    await server.createBucket('recordings');
  });
  afterAll(async () => {
    await server.close();
  });

  it('archives every recording exactly once, its SHA-256 the simulator’s, and marks the links that had expired', async () => {
    const { simulator, directory } = remote;
    const schema = uniqueName('recordings');
    const archive = {
      type: 's3',
      bucket: 'recordings',
      prefix: 'calls/',
      endpoint: server.endpoint,
      forcePathStyle: true,
      accessKeyId: 'S3RVER',
      accessKeySecret: 'S3RVER',
    };
    const { status } = await killThenRerun(simulator, directory, { type: 'postgres', url: postgresUrl, schema }, archive);
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    const rows = (await client.query<StateRow>(`select * from "${schema}".recordings`)).rows;
    await client.query(`drop schema "${schema}" cascade`);
    await client.end();
    const store = await openObjectStore(objectStoreConfigSchema.parse(archive));
    try {
      await expectArchivedOnce(simulator, rows, store, status);
    } finally {
      await store.close();
    }
  });
});
