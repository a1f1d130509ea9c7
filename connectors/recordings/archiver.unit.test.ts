import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { text } from 'node:stream/consumers';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinStreams } from '../../src/source/streams/builtin-streams.js';
import type { StreamTable } from '../../src/sink/sink.js';
import { silentLogger } from '../../test/support/silent-logger.js';
import { sqliteDialect } from '../sqlite/index.js';
import { Archiver, type ArchiveProgress } from './archiver.js';
import { openRecordingArchive, recordingSources, type RecordingArchive } from './index.js';

const HOST = 'https://recordings.example';
const tables: StreamTable[] = ['calls', 'voicemails', 'numbers'].map((name) => builtinStreams.get(name)?.table).filter((table) => table !== undefined);

let dir: string;
let path: string;
let agent: MockAgent;
let archive: RecordingArchive;

const audio = Buffer.from('RIFF....WAVEfmt fake recording bytes');

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'callsync-archiver-'));
  path = join(dir, 'mirror.db');
  const sink = await sqliteDialect.open({ type: 'sqlite', path });
  await sink.prepare(tables);
  await sink.close();
  const db = new Database(path);
  const insert = db.prepare(
    `insert into calls (business_id, id, source, recording_url, created_at, raw, synced_at, deleted_at) values (?, ?, 'v1', ?, ?, '{}', '2026-01-01T00:00:00Z', ?)`,
  );
  insert.run('acme', 'c1', `${HOST}/r/c1.wav`, '2026-01-02T10:00:00.000Z', null);
  insert.run('acme', 'c2', `${HOST}/r/c2.wav`, '2026-01-03T10:00:00.000Z', null);
  insert.run('acme', 'c3', `${HOST}/r/c3.wav`, '2026-02-01T10:00:00.000Z', null);
  insert.run('acme', 'c4', null, '2026-02-02T10:00:00.000Z', null);
  insert.run('acme', 'c5', `${HOST}/r/c5.wav`, '2026-02-03T10:00:00.000Z', '2026-02-04T00:00:00Z');
  insert.run('other', 'c1', `${HOST}/r/o1.wav`, '2026-01-02T10:00:00.000Z', null);
  db.close();
  agent = new MockAgent();
  agent.disableNetConnect();
  archive = await openRecordingArchive({ archive: { type: 'folder', path: join(dir, 'archive') } }, { type: 'sqlite', path }, silentLogger());
});

afterEach(async () => {
  await archive.close();
  await agent.close();
  await rm(dir, { recursive: true, force: true });
});

function archiver(progress: ArchiveProgress[] = [], extra: { deleteWithRecord?: boolean; removed?: string[] } = {}): Archiver {
  return new Archiver({
    deleteWithRecord: extra.deleteWithRecord ?? false,
    onRemoved: (ref) => extra.removed?.push(`${ref.businessId}/${ref.id}`),
    state: archive.state,
    sources: recordingSources(tables),
    download: {
      dispatcher: agent,
      store: archive.store,
      maxBytes: 1_000_000,
      allowHosts: [],
      timeoutMs: 5_000,
      retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
      maxWaitMs: 1_000,
    },
    concurrency: 2,
    onProgress: (event) => progress.push(event),
  });
}

describe('Archiver over the SQLite mirror and a folder', () => {
  it('reads pending rows again while downloads run and still downloads each of many recordings once, its checksum beside it', async () => {
    const db = new Database(path);
    const insert = db.prepare(
      `insert into calls (business_id, id, source, recording_url, created_at, raw, synced_at) values ('many', ?, 'v1', ?, '2026-03-01T10:00:00.000Z', '{}', '2026-01-01T00:00:00Z')`,
    );
    // More than two reads' worth (2 slots × 8 rows a read): later reads happen with downloads in flight.
    const ids = Array.from({ length: 40 }, (_unused, index) => `m${String(index).padStart(2, '0')}`);
    for (const id of ids) insert.run(id, `${HOST}/r/${id}.wav`);
    db.close();
    // One interceptor each, used once: a second request for a recording fails the MockAgent.
    for (const id of ids)
      agent
        .get(HOST)
        .intercept({ path: `/r/${id}.wav`, method: 'GET' })
        .reply(200, `${id} bytes`, { headers: { 'content-type': 'audio/wav' } });
    const progress: ArchiveProgress[] = [];
    await archiver(progress).finish(['many']);
    expect(progress.map((event) => `${event.ref.id}:${event.outcome.state}`).sort()).toEqual(ids.map((id) => `${id}:archived`));
    expect(agent.pendingInterceptors()).toEqual([]);
    const sha256 = createHash('sha256').update('m07 bytes').digest('hex');
    expect(await text(await archive.store.read('many/calls/2026/03/m07.wav.sha256'))).toBe(`${sha256}  m07.wav\n`);
    expect(await archive.state.counts()).toEqual([{ businessId: 'many', stream: 'calls', state: 'archived', count: 40, bytes: 40 * 'm00 bytes'.length }]);
  });

  it('archives each stored record’s recording once, records the state beside it, and a rerun asks nothing', async () => {
    const recordings = agent.get(HOST);
    recordings.intercept({ path: '/r/c1.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
    recordings.intercept({ path: '/r/c2.wav', method: 'GET' }).reply(403, 'expired');
    recordings.intercept({ path: '/r/c3.wav', method: 'GET' }).reply(200, '<html>login</html>', { headers: { 'content-type': 'text/html' } });
    recordings.intercept({ path: '/r/o1.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
    const progress: ArchiveProgress[] = [];
    await archiver(progress).finish(['acme', 'other']);
    expect(progress.map((event) => `${event.ref.businessId}/${event.ref.id}:${event.outcome.state}`).sort()).toEqual([
      'acme/c1:archived',
      'acme/c2:expired',
      'acme/c3:failed',
      'other/c1:archived',
    ]);
    expect(agent.pendingInterceptors()).toEqual([]);
    const sha256 = createHash('sha256').update(audio).digest('hex');
    const db = new Database(path, { readonly: true });
    const rows = db
      .prepare(
        `select c.id, r.recording_state, r.recording_reason, r.recording_archive_key, r.recording_sha256, r.recording_bytes, r.recording_archived_at is not null as stamped
         from calls c left join recordings r on r.business_id = c.business_id and r.stream = 'calls' and r.id = c.id where c.business_id = 'acme' order by c.id`,
      )
      .all();
    db.close();
    expect(rows).toEqual([
      {
        id: 'c1',
        recording_state: 'archived',
        recording_reason: null,
        recording_archive_key: 'acme/calls/2026/01/c1.wav',
        recording_sha256: sha256,
        recording_bytes: audio.byteLength,
        stamped: 1,
      },
      {
        id: 'c2',
        recording_state: 'expired',
        recording_reason: 'HTTP 403: the link was refused (expired or revoked)',
        recording_archive_key: null,
        recording_sha256: null,
        recording_bytes: null,
        stamped: 0,
      },
      {
        id: 'c3',
        recording_state: 'failed',
        recording_reason: 'answered 200 with text/html, not audio',
        recording_archive_key: null,
        recording_sha256: null,
        recording_bytes: null,
        stamped: 0,
      },
      { id: 'c4', recording_state: null, recording_reason: null, recording_archive_key: null, recording_sha256: null, recording_bytes: null, stamped: 0 },
      { id: 'c5', recording_state: null, recording_reason: null, recording_archive_key: null, recording_sha256: null, recording_bytes: null, stamped: 0 },
    ]);
    // A rerun finds nothing pending: a request now would fail the MockAgent (no interceptor left).
    const again: ArchiveProgress[] = [];
    await archiver(again).finish(['acme', 'other']);
    expect(again).toEqual([]);
    expect(await archive.state.counts()).toEqual([
      { businessId: 'acme', stream: 'calls', state: 'archived', count: 1, bytes: audio.byteLength },
      { businessId: 'acme', stream: 'calls', state: 'expired', count: 1, bytes: 0 },
      { businessId: 'acme', stream: 'calls', state: 'failed', count: 1, bytes: 0 },
      { businessId: 'other', stream: 'calls', state: 'archived', count: 1, bytes: audio.byteLength },
    ]);
  });

  it('retry puts failed and expired recordings back to pending, and the next pass archives them', async () => {
    const recordings = agent.get(HOST);
    recordings.intercept({ path: '/r/c1.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
    recordings.intercept({ path: '/r/c2.wav', method: 'GET' }).reply(403, 'expired');
    recordings.intercept({ path: '/r/c3.wav', method: 'GET' }).reply(502, 'bad gateway');
    await archiver().finish(['acme']);
    expect((await archive.state.list(['failed', 'expired'], 10)).map((row) => `${row.id}:${row.state}:${row.reason ?? ''}`)).toEqual([
      'c2:expired:HTTP 403: the link was refused (expired or revoked)',
      'c3:failed:HTTP 502 (after 1 attempt)',
    ]);
    expect(await archive.state.requeue(['failed', 'expired'], new Date().toISOString())).toBe(2);
    recordings.intercept({ path: '/r/c2.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
    recordings.intercept({ path: '/r/c3.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
    await archiver().finish(['acme']);
    expect((await archive.state.counts()).map((count) => `${count.state}:${count.count}`)).toEqual(['archived:3']);
    expect((await archive.state.list(['archived'], 10)).map((row) => row.attempts)).toEqual([1, 2, 2]);
  });

  it('with a CRM sink, keeps the state in its state: store’s database, and gives the archived links of a batch’s ids', async () => {
    await archive.close();
    archive = await openRecordingArchive(
      { archive: { type: 'folder', path: join(dir, 'archive') } },
      { type: 'hubspot', token: 'x', state: { type: 'sqlite', path } },
      silentLogger(),
    );
    const recordings = agent.get(HOST);
    recordings.intercept({ path: '/r/c1.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
    recordings.intercept({ path: '/r/c2.wav', method: 'GET' }).reply(403, 'expired');
    recordings.intercept({ path: '/r/c3.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
    await archiver().finish(['acme']);
    const links = await archive.state.archivedLinks('acme', 'calls', ['c1', 'c2', 'c3', 'c4', 'missing'], 'https://cdn.example.com/rec');
    expect([...links].sort()).toEqual([
      ['c1', 'https://cdn.example.com/rec/acme/calls/2026/01/c1.wav'],
      ['c3', 'https://cdn.example.com/rec/acme/calls/2026/02/c3.wav'],
    ]);
    expect(await archive.state.archivedLinks('other', 'calls', ['c1'], 'https://cdn.example.com')).toEqual(new Map());
    const many = Array.from({ length: 1_203 }, (_, index) => `x${index}`).concat('c1');
    expect([...(await archive.state.archivedLinks('acme', 'calls', many, 'https://cdn.example.com')).keys()]).toEqual(['c1']);
  });

  it('refuses a sink whose database cannot hold the state, saying which can', async () => {
    await expect(openRecordingArchive({} as never, { type: 'webhook' }, silentLogger())).rejects.toThrow(
      'recordings: the archive keeps its state beside the records, in the sink\'s database or its state: store\'s; sink.type "webhook" cannot hold it (use sqlite or postgres)',
    );
  });

  describe('deleteWithRecord', () => {
    /** Marks records deleted the way the reconcile does once its guard lets them go (or stores them again: null). */
    function setDeleted(ids: readonly string[], deletedAt: string | null): void {
      const db = new Database(path);
      const update = db.prepare(`update calls set deleted_at = ? where business_id = 'acme' and id = ?`);
      for (const id of ids) update.run(deletedAt, id);
      db.close();
    }
    const keys = async (): Promise<string[]> => {
      const listed: string[] = [];
      for await (const object of archive.store.list('')) listed.push(object.key);
      return listed.sort();
    };
    const c1 = 'acme/calls/2026/01/c1.wav';

    beforeEach(async () => {
      const recordings = agent.get(HOST);
      recordings.intercept({ path: '/r/c1.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
      recordings.intercept({ path: '/r/c2.wav', method: 'GET' }).reply(403, 'expired');
      recordings.intercept({ path: '/r/c3.wav', method: 'GET' }).reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
      await archiver().finish(['acme']);
      expect(await keys()).toEqual([c1, `${c1}.sha256`, 'acme/calls/2026/02/c3.wav', 'acme/calls/2026/02/c3.wav.sha256']);
    });

    it('off (the default), keeps a recording whose record is marked deleted', async () => {
      setDeleted(['c1', 'c2'], '2026-03-01T00:00:00Z');
      const removed: string[] = [];
      await archiver([], { removed }).finish(['acme']);
      expect(removed).toEqual([]);
      expect(await keys()).toContain(c1);
      expect((await archive.state.counts()).map((count) => `${count.state}:${count.count}`)).toEqual(['archived:2', 'expired:1']);
    });

    it('on, removes the object and its checksum of each record marked deleted and marks the row; only those', async () => {
      setDeleted(['c1', 'c2'], '2026-03-01T00:00:00Z');
      const removed: string[] = [];
      await archiver([], { deleteWithRecord: true, removed }).finish(['acme', 'other']);
      expect(removed.sort()).toEqual(['acme/c1', 'acme/c2']);
      expect(await keys()).toEqual(['acme/calls/2026/02/c3.wav', 'acme/calls/2026/02/c3.wav.sha256']);
      const rows = (await archive.state.list(['deleted'], 10)).map((row) => `${row.businessId}/${row.id}:${row.reason ?? ''}`);
      expect(rows).toEqual([
        'acme/c1:record marked deleted; recording removed (recordings.deleteWithRecord)',
        'acme/c2:record marked deleted; recording removed (recordings.deleteWithRecord)',
      ]);
      // Done once: a second pass has nothing to remove.
      const again: string[] = [];
      await archiver([], { deleteWithRecord: true, removed: again }).finish(['acme']);
      expect(again).toEqual([]);
    });

    it('a record stored again after its recording was removed is pending again and archived anew', async () => {
      setDeleted(['c1'], '2026-03-01T00:00:00Z');
      await archiver([], { deleteWithRecord: true }).finish(['acme']);
      setDeleted(['c1'], null);
      agent
        .get(HOST)
        .intercept({ path: '/r/c1.wav', method: 'GET' })
        .reply(200, audio, { headers: { 'content-type': 'audio/wav' } });
      const progress: ArchiveProgress[] = [];
      await archiver(progress, { deleteWithRecord: true }).finish(['acme']);
      expect(progress.map((event) => `${event.ref.id}:${event.outcome.state}`)).toEqual(['c1:archived']);
      expect(await keys()).toContain(`${c1}.sha256`);
    });

    it('removes the object a crash left between its put and its row update, for a pending row', async () => {
      await archive.state.requeue(['archived'], new Date().toISOString());
      setDeleted(['c1'], '2026-03-01T00:00:00Z');
      // c3 stays pending and its record stored, with its object and checksum whole: the rerun after a
      // crash adopts it without asking (the agent has no interceptor left, so a request would fail it).
      await archiver([], { deleteWithRecord: true }).finish(['acme']);
      expect(await keys()).toEqual(['acme/calls/2026/02/c3.wav', 'acme/calls/2026/02/c3.wav.sha256']);
      const c3 = (await archive.state.list(['archived'], 10)).map((row) => row.id);
      expect(c3).toEqual(['c3']);
    });
  });
});
