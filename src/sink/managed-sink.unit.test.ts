import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { Batch, StreamTable, SyncRecord } from './sink.js';
import { MemoryStateStore } from '../../test/fakes/memory-state-store.js';
import { ManagedSink } from './managed-sink.js';
import type { StoreBatch, Target, TargetOutcome } from './parts.js';
import { InvalidBatchError, SinkClosedError, SinkUnavailableError } from './sink-errors.js';

const calls: StreamTable = { stream: 'calls', table: 'calls', columns: [] };
const record = (id: string, raw: SyncRecord['raw'] = {}, businessId = 'acme'): SyncRecord => ({ businessId, id, source: 'v1', fields: {}, raw });
const batch = (records = 1, businessId = 'acme'): Batch => ({
  businessId: 'acme',
  table: calls,
  records: Array.from({ length: records }, (_, i) => record(`c${i}`, {}, businessId)),
  deadLetters: [],
});

/** A target that stores everything except ids listed in `refuse`, and records what it was asked. */
class RecordingTarget implements Target {
  readonly capabilities = { maxBatchSize: 3 };
  readonly sent: string[][] = [];
  /** Each sent batch's `rawTexts`, as given. */
  readonly texts: (readonly string[] | undefined)[] = [];
  readonly revived: string[][] = [];
  readonly deleted: string[][] = [];
  readonly refuse = new Set<string>();
  closes = 0;

  prepare(): Promise<void> {
    return Promise.resolve();
  }

  send(sent: StoreBatch, revived: ReadonlySet<string>): Promise<TargetOutcome> {
    this.sent.push(sent.records.map((stored) => stored.id));
    this.texts.push(sent.rawTexts);
    this.revived.push([...revived]);
    const rejected = sent.records.filter((candidate) => this.refuse.has(candidate.id));
    return Promise.resolve({
      stored: sent.records.filter((candidate) => !this.refuse.has(candidate.id)),
      rejected: rejected.map((refused) => ({ businessId: sent.businessId, stream: sent.table.stream, reason: 'target: no', raw: refused.raw })),
    });
  }

  delete(_businessId: string, _table: StreamTable, ids: readonly string[]): Promise<void> {
    this.deleted.push([...ids]);
    return Promise.resolve();
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closes++;
    return Promise.resolve();
  }
}

const logger = pino({ level: 'silent' });

/** JSON nested `levels` deep: `{ a: { a: … 1 } }`. */
function nested(levels: number): SyncRecord['raw'] {
  let value: SyncRecord['raw'] = 1;
  for (let level = 0; level < levels; level++) value = { a: value };
  return value;
}

describe('ManagedSink', () => {
  it('takes the target capabilities over the defaults', () => {
    expect(new ManagedSink({ type: 'memory', store: new MemoryStateStore() }, logger).capabilities).toEqual({ maxBatchSize: 500 });
    expect(new ManagedSink({ type: 'memory', store: new MemoryStateStore(), target: new RecordingTarget() }, logger).capabilities).toEqual({ maxBatchSize: 3 });
  });

  it('prepares a table once, before its first write, even for concurrent writes', async () => {
    const store = new MemoryStateStore();
    const sink = new ManagedSink({ type: 'memory', store }, logger);
    await Promise.all([sink.write(batch(), {}), sink.write(batch(), {}), sink.prepare([calls])]);
    await sink.checkpoints.load('acme', 'calls');
    expect(store.prepared).toEqual([['calls']]);
  });

  it('retries a failed prepare on the next call', async () => {
    const store = new MemoryStateStore();
    store.failPrepare = 1;
    const sink = new ManagedSink({ type: 'memory', store }, logger);
    await expect(sink.prepare([calls])).rejects.toThrow(/starting up/);
    await sink.prepare([calls]);
    expect(store.prepared).toEqual([['calls']]);
  });

  it('closes target and store once and refuses work afterwards', async () => {
    const store = new MemoryStateStore();
    const target = new RecordingTarget();
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    await Promise.all([sink.close(), sink.close()]);
    await sink.close();
    expect([store.closed, target.closes]).toEqual([1, 1]);
    await expect(sink.write(batch(), {})).rejects.toBeInstanceOf(SinkClosedError);
    await expect(sink.deadLetters.list({})).rejects.toThrow('memory sink is already closed: cannot list dead letters');
  });

  it('rejects batches that break the contract before any part sees them', async () => {
    const target = new RecordingTarget();
    const sink = new ManagedSink({ type: 'memory', store: new MemoryStateStore(), target }, logger);
    await expect(sink.write(batch(4), {})).rejects.toThrow(/exceeds maxBatchSize 3/);
    await expect(sink.write(batch(1, 'globex'), {})).rejects.toBeInstanceOf(InvalidBatchError);
    const foreignLetter = { ...batch(0), deadLetters: [{ businessId: 'acme', stream: 'voicemails', reason: 'x', raw: {} }] };
    await expect(sink.write(foreignLetter, {})).rejects.toThrow(/dead letter of acme\/voicemails/);
    const wholeCheckpoint = { businessId: 'acme', stream: 'calls', position: {}, recordsSynced: 0 };
    await expect(sink.write(batch(), wholeCheckpoint)).rejects.toThrow(/pass checkpoint.position/);
    expect(target.sent).toEqual([]);
  });

  it('sends one record per id, the later copy winning, and commits what the target stored with its refusals', async () => {
    const store = new MemoryStateStore();
    const target = new RecordingTarget();
    target.refuse.add('c2');
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    const result = await sink.write({ ...batch(0), records: [record('c1', { v: 1 }), record('c2'), record('c1', { v: 2 })] }, { page: 1 });
    expect(target.sent).toEqual([['c2', 'c1']]);
    expect(result).toEqual({ written: 1, unchanged: 0, deadLettered: 1 });
    expect(store.commits.map((commit) => commit.records.map((stored) => stored.raw))).toEqual([[{ v: 2 }]]);
    expect(await sink.checkpoints.load('acme', 'calls')).toEqual({ businessId: 'acme', stream: 'calls', position: { page: 1 }, recordsSynced: 1 });
  });

  it('dead-letters a record nested too deep for any store and sends the rest', async () => {
    const store = new MemoryStateStore();
    const target = new RecordingTarget();
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    const result = await sink.write({ ...batch(0), records: [record('deep', nested(6000)), record('ok')] }, {});
    expect(target.sent).toEqual([['ok']]);
    expect(result).toEqual({ written: 1, unchanged: 0, deadLettered: 1 });
    expect(store.letters.map((letter) => letter.reason)).toEqual(['raw: JSON nested deeper than 1000 levels']);
  });

  it("judges storability from each record's JSON text and hands the store that same text", async () => {
    const store = new MemoryStateStore();
    const sink = new ManagedSink({ type: 'memory', store }, logger);
    const records = [
      record('paired', { t: '\u{1F600}' }),
      record('lone', { t: 'a\uD800' }),
      // A literal backslash before "ud800" looks like an escaped lone surrogate in the text: the walk clears it.
      record('backslash', { t: '\\ud800' }),
      record('deep-enough', nested(1000)),
      record('too-deep', nested(1001)),
      record('long-lone-key', { ['k\uDC00']: 'x'.repeat(3000) }),
    ];
    const result = await sink.write({ ...batch(0), records }, {});
    expect(result).toEqual({ written: 3, unchanged: 0, deadLettered: 3 });
    const [commit] = store.commits as StoreBatch[];
    expect(commit?.records.map((stored) => stored.id)).toEqual(['paired', 'backslash', 'deep-enough']);
    expect(commit?.rawTexts).toEqual(commit?.records.map((stored) => JSON.stringify(stored.raw)));
    expect(store.letters.map((letter) => letter.reason)).toEqual([
      'raw.t: lone surrogate in a string (not valid Unicode)',
      'raw: JSON nested deeper than 1000 levels',
      'raw: lone surrogate in a string (not valid Unicode)',
    ]);
  });

  it("hands the target each sent record's JSON text, made once, in the records' order", async () => {
    const store = new MemoryStateStore();
    const target = new RecordingTarget();
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    // A repeated id and a record no store can keep: the texts follow the records actually sent.
    await sink.write({ ...batch(0), records: [record('c1', { v: 1 }), record('lone', { t: 'a\uD800' }), record('c1', { v: '\u{1F600}' })] }, {});
    expect(target.sent).toEqual([['c1']]);
    expect(target.texts).toEqual([['{"v":"\u{1F600}"}']]);
  });

  it('asks the target to delete before marking rows deleted in the store, and skips an empty list', async () => {
    const store = new MemoryStateStore();
    const target = new RecordingTarget();
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    await sink.write({ ...batch(0), records: [record('c1'), record('c2')] }, {});
    expect(await sink.records.markDeleted('acme', calls, [])).toBe(0);
    expect(await sink.records.markDeleted('acme', calls, ['c1', 'missing'])).toBe(1);
    expect(target.deleted).toEqual([['c1', 'missing']]);
    expect(await sink.records.listIds('acme', calls)).toEqual(['c2']);
    expect(await sink.records.count('acme', calls)).toBe(1);
    // c1 comes back upstream: the target is told, so it takes it even though its content is the same.
    await sink.write({ ...batch(0), records: [record('c1'), record('c2')] }, {});
    expect(target.revived.at(-1)).toEqual(['c1']);
    expect(await sink.records.count('acme', calls)).toBe(2);
  });

  it('asks the store which ids come back only for a target that reads them, and still clears their deletion', async () => {
    const store = new MemoryStateStore();
    const asked: string[][] = [];
    const { deletedAmong } = store.records;
    store.records.deletedAmong = (businessId, table, ids) => {
      asked.push([...ids]);
      return deletedAmong(businessId, table, ids);
    };
    const target = Object.assign(new RecordingTarget(), { readsRevived: false });
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    await sink.write({ ...batch(0), records: [record('c1'), record('c2')] }, {});
    expect(await sink.records.markDeleted('acme', calls, ['c1'])).toBe(1);
    await sink.write({ ...batch(0), records: [record('c1')] }, {});
    expect(asked).toEqual([]);
    expect(target.revived).toEqual([[], []]);
    expect(await sink.records.count('acme', calls)).toBe(2);
  });

  it('keeps a stream the target does not write in the store alone: never sent, deleted there, no dead letter', async () => {
    const store = new MemoryStateStore();
    const target = Object.assign(new RecordingTarget(), { writes: new Set(['calls']) });
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    const numbers: StreamTable = { stream: 'numbers', table: 'numbers', columns: [{ name: 'number', type: 'text' }] };
    const tracked = { businessId: 'acme', id: 'n1', source: 'v1' as const, fields: { number: '+14155550123' }, raw: {} };
    const result = await sink.write({ businessId: 'acme', table: numbers, records: [tracked], deadLetters: [] }, { n: 1 });
    expect(result).toEqual({ written: 1, unchanged: 0, deadLettered: 0 });
    expect(target.sent).toEqual([]);
    expect(store.letters).toEqual([]);
    expect(await store.records.columnValues('acme', numbers, 'number')).toEqual(['+14155550123']);
    expect(await sink.records.markDeleted('acme', numbers, ['n1'])).toBe(1);
    expect(target.deleted).toEqual([]);
    await sink.write(batch(1), {});
    expect(target.sent).toEqual([['c0']]);
  });

  it("commits an outcome handed over before the target's batch is durable only once it is, nothing when it is not, and ends the write with both", async () => {
    const store = new MemoryStateStore();
    const target = new RecordingTarget();
    const files: { resolve: () => void; reject: (error: Error) => void }[] = [];
    const send = target.send.bind(target);
    target.send = async (sent, revived) => ({
      ...(await send(sent, revived)),
      durable: new Promise<void>((resolve, reject) => files.push({ resolve, reject })),
    });
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    const settled = (write: Promise<unknown>): Promise<boolean> => {
      const done = write.then(
        () => true,
        () => true,
      );
      return Promise.race([done, new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
    };

    const first = sink.write(batch(2), { page: 1 });
    expect(await settled(first)).toBe(false);
    expect(store.commits).toEqual([]);
    files[0]?.resolve();
    expect(await first).toEqual({ written: 2, unchanged: 0, deadLettered: 0 });
    expect(await store.checkpoints.load('acme', 'calls')).toEqual({ businessId: 'acme', stream: 'calls', position: { page: 1 }, recordsSynced: 2 });

    const failed = sink.write(batch(1), { page: 2 });
    expect(await settled(failed)).toBe(false);
    files[1]?.reject(new Error('disk full'));
    await expect(failed).rejects.toThrow('disk full');
    expect(store.commits).toHaveLength(1);
    expect((await store.checkpoints.load('acme', 'calls'))?.position).toEqual({ page: 1 });

    // A commit that fails at once is reported only once the target's file has settled.
    store.commit = () => Promise.reject(new Error('database locked'));
    const refused = sink.write(batch(1), { page: 3 });
    expect(await settled(refused)).toBe(false);
    files[2]?.resolve();
    await expect(refused).rejects.toThrow('database locked');
  });

  it("passes the target's notes on in the write's result", async () => {
    const store = new MemoryStateStore();
    const target = new RecordingTarget();
    const note = { code: 'party_by_direction', count: 2, message: 'calls guessed' };
    const send = target.send.bind(target);
    target.send = async (sent, revived) => ({ ...(await send(sent, revived)), notes: [note] });
    const sink = new ManagedSink({ type: 'memory', store, target }, logger);
    expect(await sink.write(batch(2), {})).toEqual({ written: 2, unchanged: 0, deadLettered: 0, notes: [note] });
  });

  it('throws a failure the connector explains as its explanation, and one with a kind of its own as it is', async () => {
    const store = new MemoryStateStore();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const explain = (error: unknown) =>
      (error as { code?: unknown }).code === 'ECONNREFUSED'
        ? {
            what: 'cannot reach PostgreSQL at postgres://db/x (sink.url): connection refused',
            fix: 'start PostgreSQL there, or correct sink.url',
            cause: 'unreachable' as const,
          }
        : undefined;
    const sink = new ManagedSink({ type: 'memory', store, explain }, logger);
    store.commit = () => Promise.reject(refused);
    const thrown: unknown = await sink.write(batch(1), {}).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(SinkUnavailableError);
    expect(thrown).toMatchObject({ kind: 'unreachable', fix: 'start PostgreSQL there, or correct sink.url', cause: refused });
    const own = Object.assign(new Error('429'), { kind: 'rate_limited', code: 'ECONNREFUSED' });
    store.commit = () => Promise.reject(own);
    await expect(sink.write(batch(1), {})).rejects.toBe(own);
  });
});
