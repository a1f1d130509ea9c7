import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinStreams } from '../../src/source/streams/builtin-streams.js';
import type { StreamTable } from '../../src/sink/sink.js';
import { silentLogger } from '../../test/support/silent-logger.js';
import { sqliteDialect } from '../sqlite/index.js';
import type { RecordingOutcome } from './download.js';
import { openRecordingState } from './index.js';
import type { RecordingStateStore } from './state.js';

const tables: StreamTable[] = ['calls', 'voicemails'].map((name) => builtinStreams.get(name)?.table).filter((table) => table !== undefined);
const CALLS = { stream: 'calls', table: 'calls' };
const archivedAs = (id: string): RecordingOutcome => ({
  state: 'archived',
  key: `acme/calls/2026/01/${id}.wav`,
  sha256: 'a'.repeat(64),
  bytes: 10,
  contentType: 'audio/wav',
});

let dir: string;
let path: string;
let state: RecordingStateStore | undefined;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'callsync-rec-state-'));
  path = join(dir, 'mirror.db');
  const sink = await sqliteDialect.open({ type: 'sqlite', path });
  await sink.prepare(tables);
  await sink.close();
  const db = new Database(path);
  const insert = db.prepare(
    `insert into calls (business_id, id, source, recording_url, created_at, raw, synced_at, deleted_at) values ('acme', ?, 'v1', ?, '2026-01-02T10:00:00.000Z', ?, '2026-01-01T00:00:00Z', ?)`,
  );
  for (const id of ['c1', 'c2', 'c3']) insert.run(id, `https://rec.example/${id}.wav`, JSON.stringify({ id }), null);
  insert.run('c4', 'https://rec.example/c4.wav', JSON.stringify({ id: 'c4' }), '2026-01-05T00:00:00Z');
  db.close();
});

afterEach(async () => {
  await state?.close();
  state = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function opened(): Promise<RecordingStateStore> {
  state = await openRecordingState({ type: 'sqlite', path }, silentLogger());
  return state;
}

/** Settles the pending rows of `ids` as archived at `at`. */
async function archive(store: RecordingStateStore, ids: readonly string[], at: string): Promise<void> {
  for (const ref of await store.pending('acme', 10)) if (ids.includes(ref.id)) await store.settle(ref, archivedAs(ref.id), at);
}

const owed = async (store: RecordingStateStore): Promise<string[]> => (await store.unsentLinks('acme', CALLS, '', 10)).map((row) => row.id);

describe('the recordings table: which archived links a CRM is still owed (link_sent_at)', () => {
  it('owes an archived, stored record until a write that carried its link is marked, and owes it again once archived anew', async () => {
    const store = await opened();
    await store.enqueue('acme', CALLS, '2026-01-10T00:00:00.000Z');
    await archive(store, ['c1', 'c2'], '2026-01-10T00:00:01.000Z');
    // c3 pending: nothing to send yet.
    expect(await owed(store)).toEqual(['c1', 'c2']);
    expect((await store.unsentLinks('acme', CALLS, 'c1', 10)).map((row) => ({ id: row.id, raw: row.raw }))).toEqual([{ id: 'c2', raw: { id: 'c2' } }]);

    // Read before c2 was archived: its mark would claim a link the write never carried.
    expect(await store.markLinksSent('acme', 'calls', ['c1', 'c2'], '2026-01-10T00:00:00.500Z', '2026-01-10T00:00:02.000Z')).toBe(0);
    expect(await store.markLinksSent('acme', 'calls', ['c1'], '2026-01-10T00:00:01.500Z', '2026-01-10T00:00:02.000Z')).toBe(1);
    expect(await owed(store)).toEqual(['c2']);
    // Marking twice changes nothing.
    expect(await store.markLinksSent('acme', 'calls', ['c1'], '2026-01-10T00:00:03.000Z', '2026-01-10T00:00:03.000Z')).toBe(0);

    // Archived again (a retry after a re-queue): the CRM has not had this link yet.
    const [c1] = (await store.list(['archived'], 10)).filter((row) => row.id === 'c1');
    if (c1 === undefined) throw new Error('c1 is archived');
    await store.settle(c1, archivedAs('c1'), '2026-01-11T00:00:00.000Z');
    expect(await owed(store)).toEqual(['c1', 'c2']);
  });

  it('leaves out a record marked deleted and another business’s rows', async () => {
    const store = await opened();
    await store.enqueue('acme', CALLS, '2026-01-10T00:00:00.000Z');
    await archive(store, ['c1', 'c2', 'c3'], '2026-01-10T00:00:01.000Z');
    // c4 is marked deleted: no row was added for it, and none is owed.
    expect(await owed(store)).toEqual(['c1', 'c2', 'c3']);
    expect(await store.unsentLinks('other', CALLS, '', 10)).toEqual([]);
    expect(await store.markLinksSent('other', 'calls', ['c1'], '2026-01-12T00:00:00.000Z', '2026-01-12T00:00:00.000Z')).toBe(0);
  });

  it('adds link_sent_at to a table created before it, its archived rows owed once', async () => {
    const db = new Database(path);
    db.exec(
      `create table recordings (business_id text not null, stream text not null, id text not null, url text not null, created_at text, ` +
        `recording_state text not null, recording_reason text, recording_archive_key text, recording_sha256 text, recording_bytes integer, ` +
        `recording_archived_at text, attempts integer not null default 0, updated_at text not null, primary key (business_id, stream, id))`,
    );
    db.prepare(
      `insert into recordings values ('acme', 'calls', 'c1', 'https://rec.example/c1.wav', '2026-01-02T10:00:00.000Z', 'archived', null, 'acme/calls/2026/01/c1.wav', ?, 10, '2026-01-09T00:00:00.000Z', 1, '2026-01-09T00:00:00.000Z')`,
    ).run('a'.repeat(64));
    db.close();

    const store = await opened();
    expect(await owed(store)).toEqual(['c1']);
    expect(await store.markLinksSent('acme', 'calls', ['c1'], '2026-01-10T00:00:00.000Z', '2026-01-10T00:00:00.000Z')).toBe(1);
    expect(await owed(store)).toEqual([]);
    await store.close();
    state = undefined;
    // Opened again: the column is there, nothing added twice, the mark kept.
    expect(await owed(await opened())).toEqual([]);
  });
});
