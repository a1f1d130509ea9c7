import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import Database from 'better-sqlite3';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { objectStoreConfigSchema } from '../../../connectors/object-storage/config.js';
import { sqliteDialect } from '../../../connectors/sqlite/index.js';
import { Archiver, openRecordingArchive, recordingSources, type ArchiveProgress } from '../../../connectors/recordings/index.js';
import type { RecordingArchive } from '../../../connectors/recordings/index.js';
import { builtinStreams } from '../../../src/source/streams/builtin-streams.js';
import type { StreamTable } from '../../../src/sink/sink.js';
import { startS3Server, S3_TEST_CREDENTIALS, type TestS3Server } from '../../support/s3-server.js';
import { silentLogger } from '../../support/silent-logger.js';

const tables: StreamTable[] = ['calls', 'voicemails'].map((name) => builtinStreams.get(name)?.table).filter((table) => table !== undefined);

/** What the recordings host serves, by path: bytes and their type. */
const served = new Map<string, { readonly bytes: Buffer; readonly type: string }>([
  ['/r/a1.wav', { bytes: Buffer.alloc(70_000, 'a1'), type: 'audio/wav' }],
  // No extension in the link: its key's comes from the answer's type (flac).
  ['/r/a2', { bytes: Buffer.alloc(50_000, 'a2'), type: 'audio/flac' }],
  ['/r/a3.wav', { bytes: Buffer.alloc(30_000, 'a3'), type: 'audio/wav' }],
  ['/r/a4.wav', { bytes: Buffer.alloc(40_000, 'a4'), type: 'audio/wav' }],
]);
const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

let host: Server;
let origin: string;
/** Every request the recordings host answered, by path. */
const asked: string[] = [];
let s3: TestS3Server;
let dispatcher: Agent;

beforeAll(async () => {
  host = createServer((request, response) => {
    const path = request.url ?? '';
    asked.push(path);
    const body = served.get(path);
    if (body === undefined) response.writeHead(404).end();
    else response.writeHead(200, { 'content-type': body.type, 'content-length': body.bytes.byteLength }).end(body.bytes);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`;
  s3 = await startS3Server();
  await s3.createBucket('recordings');
  dispatcher = new Agent();
});

afterAll(async () => {
  await dispatcher.close();
  await s3.close();
  await new Promise((resolve) => host.close(resolve));
});

/** A SQLite mirror with calls a1–a4, each with its link on the test's host. */
async function mirror(directory: string): Promise<string> {
  const path = join(directory, 'mirror.db');
  const sink = await sqliteDialect.open({ type: 'sqlite', path });
  await sink.prepare(tables);
  await sink.close();
  const db = new Database(path);
  const insert = db.prepare(
    `insert into calls (business_id, id, source, recording_url, created_at, raw, synced_at) values ('acme', ?, 'v1', ?, '2026-05-04T10:00:00.000Z', '{}', '2026-05-05T00:00:00Z')`,
  );
  for (const path of served.keys()) insert.run(path.slice('/r/'.length).replace('.wav', ''), `${origin}${path}`);
  db.close();
  return path;
}

function archiver(archive: RecordingArchive, progress: ArchiveProgress[]): Archiver {
  return new Archiver({
    state: archive.state,
    sources: recordingSources(tables),
    download: {
      dispatcher,
      store: archive.store,
      maxBytes: 1_000_000,
      allowHosts: [],
      timeoutMs: 10_000,
      retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
      maxWaitMs: 1_000,
    },
    concurrency: 2,
    onProgress: (event) => progress.push(event),
  });
}

/** The rows as a crash between the put and the row update leaves them: `pending`, nothing recorded. */
function crashedBeforeRowUpdate(path: string, ids: readonly string[]): void {
  const db = new Database(path);
  const update = db.prepare(
    `update recordings set recording_state = 'pending', recording_archive_key = null, recording_sha256 = null, recording_bytes = null, recording_archived_at = null where id = ?`,
  );
  for (const id of ids) update.run(id);
  db.close();
}

interface Row {
  readonly id: string;
  readonly recording_state: string;
  readonly recording_archive_key: string | null;
  readonly recording_sha256: string | null;
  readonly recording_bytes: number | null;
}

describe.each(['folder', 's3'] as const)('a pending recording already stored (%s)', (kind) => {
  it('is adopted from its object and checksum without a download; a checksum alone or an object alone is downloaded again', async () => {
    const directory = await mkdtemp(join(tmpdir(), `callsync-adopt-${kind}-`));
    try {
      const path = await mirror(directory);
      const config = objectStoreConfigSchema.parse(
        kind === 'folder'
          ? { type: 'folder', path: join(directory, 'archive') }
          : { type: 's3', bucket: 'recordings', prefix: 'adopt/', endpoint: s3.endpoint, forcePathStyle: true, ...S3_TEST_CREDENTIALS },
      );
      const archive = await openRecordingArchive({ archive: config }, { type: 'sqlite', path }, silentLogger());
      try {
        // The first run stores every recording, as the run that crashed did before its row updates.
        await archiver(archive, []).finish(['acme']);
        expect(asked.splice(0).sort()).toEqual([...served.keys()].sort());
        crashedBeforeRowUpdate(path, ['a1', 'a2', 'a3', 'a4']);
        // a3: a removal that crashed between the object and its checksum left the checksum alone, stale.
        await archive.store.delete('acme/calls/2026/05/a3.wav');
        await archive.store.put('acme/calls/2026/05/a3.wav.sha256', Buffer.from(`${'0'.repeat(64)}  a3.wav\n`));
        // a4: a crash between the object and its checksum left the object alone.
        await archive.store.delete('acme/calls/2026/05/a4.wav.sha256');

        const progress: ArchiveProgress[] = [];
        await archiver(archive, progress).finish(['acme']);
        expect(asked.splice(0).sort()).toEqual(['/r/a3.wav', '/r/a4.wav']);
        expect(progress.map((event) => `${event.ref.id}:${event.outcome.state}`).sort()).toEqual(['a1:archived', 'a2:archived', 'a3:archived', 'a4:archived']);

        const db = new Database(path, { readonly: true });
        const rows = db
          .prepare<[], Row>(`select id, recording_state, recording_archive_key, recording_sha256, recording_bytes from recordings order by id`)
          .all();
        db.close();
        expect(rows).toEqual(
          [...served].map(([link, body]) => {
            const id = link.slice('/r/'.length).replace('.wav', '');
            return {
              id,
              recording_state: 'archived',
              recording_archive_key: `acme/calls/2026/05/${id}.${id === 'a2' ? 'flac' : 'wav'}`,
              recording_sha256: sha256(body.bytes),
              recording_bytes: body.bytes.byteLength,
            };
          }),
        );
        // The stale checksum was replaced by the download's.
        expect(await text(await archive.store.read('acme/calls/2026/05/a3.wav.sha256'))).toBe(
          `${sha256(served.get('/r/a3.wav')?.bytes ?? Buffer.alloc(0))}  a3.wav\n`,
        );
        expect(await text(await archive.store.read('acme/calls/2026/05/a4.wav.sha256'))).toBe(
          `${sha256(served.get('/r/a4.wav')?.bytes ?? Buffer.alloc(0))}  a4.wav\n`,
        );
      } finally {
        await archive.close();
      }
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
