import pg from 'pg';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openPostgresDriver } from '../../../connectors/postgres/client.js';
import { postgresSinkFactory } from '../../../connectors/postgres/index.js';
import { postgresAdapter } from '../../../connectors/postgres/target.js';
import { SqlStore, type SqlDriver } from '../../../connectors/sql/index.js';
import { STAGED_MIN_ROWS } from '../../../connectors/sql/statements.js';
import { jsonText } from '../../../src/sink/json-text.js';
import type { Json, StreamTable, SyncRecord, WriteResult } from '../../../src/sink/sink.js';
import { postgresUrl, uniqueName } from '../services.js';

const logger = pino({ level: 'silent' });
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const table: StreamTable = {
  stream: 'events',
  table: 'events',
  columns: [
    { name: 't', type: 'text' },
    { name: 'i', type: 'integer' },
    { name: 'n', type: 'number' },
    { name: 'b', type: 'boolean' },
    { name: 'ts', type: 'timestamp' },
  ],
};

/** Text COPY's format gives a meaning to (its escapes, its null, its end marker), and text it does not. */
const TEXTS = [
  'plain',
  'back\\slash',
  'ends in a backslash\\',
  'tab\there',
  'new\nline',
  'cr\rlf\r\n',
  '\\N',
  '\\.',
  '\\t literal',
  '"quoted" and \'single\'',
  'émoji 📞 and e\u0301',
  '',
  '\b\f\v\u0001 control',
  ' leading and trailing ',
];
const NUMBERS = [0, -0, 1.5, -2.25e-7, 1e21, 123456789.12345679, Number.MAX_VALUE];
const INTEGERS = [0, -5, 9007199254740991, -9007199254740991];

function record(index: number): SyncRecord {
  const text = TEXTS[index % TEXTS.length] as string;
  const raw: Json = {
    id: `e${index}`,
    text,
    [`key\t${text}`]: [text, { nested: `${text}\\${text}` }],
    number: NUMBERS[index % NUMBERS.length] as number,
    big: 12345678901234567000,
    flag: index % 2 === 0,
    none: null,
  };
  return {
    businessId: 'acme',
    id: index % 3 === 0 ? `e${index}\twith\\tab` : `e${index}`,
    source: index % 2 === 0 ? 'v1' : 'v2',
    fields: {
      t: index % 5 === 4 ? null : text,
      i: INTEGERS[index % INTEGERS.length] as number,
      n: index % 4 === 3 ? null : (NUMBERS[index % NUMBERS.length] as number),
      b: index % 3 === 2 ? null : index % 2,
      ts: index % 6 === 5 ? null : `2024-0${(index % 9) + 1}-15T12:34:56.${String(index).padStart(3, '0')}Z`,
    },
    raw,
  };
}

/** `driver` without its bulk path: every batch bound as parameters (`unnest`), the way before COPY. */
function bound(driver: SqlDriver): SqlDriver {
  return {
    db: driver.db,
    select: (statement, parameters) => driver.select(statement, parameters),
    transaction: (body) => driver.transaction((executor) => body({ run: (text, parameters, name) => executor.run(text, parameters, name) })),
    withSchemaLock: (body) => driver.withSchemaLock(body),
    destroy: () => driver.destroy(),
  };
}

async function query(text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    return (await client.query<Record<string, unknown>>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** A store in a fresh schema, through COPY (`copy`) or bound parameters. */
async function store(copy: boolean): Promise<{ store: SqlStore; schema: string }> {
  const schema = uniqueName(copy ? 'copy' : 'bound');
  const driver = openPostgresDriver({ type: 'postgres', url: postgresUrl, schema }, logger);
  const opened = new SqlStore(postgresAdapter(schema), copy ? driver : bound(driver));
  cleanups.push(async () => {
    await opened.close();
    await query(`drop schema if exists "${schema}" cascade`);
  });
  await opened.prepare([table]);
  return { store: opened, schema };
}

/** Every stored column as the database prints it, `raw` as its jsonb text. */
function rows(schema: string): Promise<Record<string, unknown>[]> {
  return query(`select business_id, id, source, t, i::text, n::text, b::text, ts::text, raw::text, deleted_at from "${schema}".events order by id`);
}

/** Logs the statement that inserted or updated each row of the stream table, as the server saw it; reads them, once each. */
async function watchStatements(schema: string): Promise<() => Promise<string[]>> {
  await query(`create table "${schema}".seen (text text);
    create function "${schema}".seen() returns trigger language plpgsql as $$
      begin insert into "${schema}".seen values (current_query()); return null; end $$;
    create trigger seen after insert or update on "${schema}".events for each row execute function "${schema}".seen();`);
  return async () => (await query(`select distinct text from "${schema}".seen`)).map((row) => row.text as string);
}

/** The merge from a staging table, not a statement of bound rows (nor the row-by-row redo). */
const MERGE = /^insert into "[a-z0-9_]+"\."events" as t .* from "callsync_stage_[0-9a-f]{16}" on conflict/;
/** COPY straight into the stream table: a batch of a stream whose rows have all been new. */
const INSERT = /^copy "[a-z0-9_]+"\."events" \("business_id", "id", .*\) from stdin$/;

function write(target: SqlStore, records: readonly SyncRecord[], page: number): Promise<WriteResult> {
  return target.commit({ businessId: 'acme', table, records, deadLetters: [], rawTexts: records.map((one) => jsonText(one.raw)) }, { page });
}

describe('Postgres writes a batch by COPY: into the table while its rows are new, else into a staging table and one merge', () => {
  it('binds a batch of fewer rows than the bulk path pays off for', async () => {
    const { store: copied, schema } = await store(true);
    const statements = await watchStatements(schema);
    const records = Array.from({ length: STAGED_MIN_ROWS - 1 }, (_, index) => record(index));
    expect(await write(copied, records, 1)).toEqual({ written: records.length, unchanged: 0, deadLettered: 0 });
    expect(await statements()).toEqual([expect.stringMatching(/ from unnest\(/)]);
  });

  it('stores every value and raw exactly as bound parameters store them, inserted or merged: escapes, nulls, numbers, timestamps', async () => {
    const records = Array.from({ length: STAGED_MIN_ROWS + 60 }, (_, index) => record(index));
    const copied = await store(true);
    const merged = await store(true);
    const boundStore = await store(false);
    const statements = await watchStatements(copied.schema);
    expect(await write(copied.store, records, 1)).toEqual({ written: records.length, unchanged: 0, deadLettered: 0 });
    expect(await statements()).toEqual([expect.stringMatching(INSERT)]);
    // One record stored first (bound: too few for COPY), so the batch's insert finds it and the batch merges.
    expect(await write(merged.store, records.slice(0, 1), 1)).toEqual({ written: 1, unchanged: 0, deadLettered: 0 });
    const mergedStatements = await watchStatements(merged.schema);
    expect(await write(merged.store, records, 2)).toEqual({ written: records.length - 1, unchanged: 1, deadLettered: 0 });
    expect(await mergedStatements()).toEqual([expect.stringMatching(MERGE)]);
    expect(await write(boundStore.store, records, 1)).toEqual({ written: records.length, unchanged: 0, deadLettered: 0 });
    const stored = await rows(copied.schema);
    expect(stored).toEqual(await rows(boundStore.schema));
    expect(await rows(merged.schema)).toEqual(stored);
    // And as received: the text and the JSON read back are what was written.
    const byId = new Map(records.map((one) => [one.id, one]));
    for (const row of stored) {
      const original = byId.get(row.id as string) as SyncRecord;
      expect(JSON.parse(row.raw as string)).toEqual(JSON.parse(jsonText(original.raw)));
      expect(row.t).toBe(original.fields.t);
    }
    expect(stored.map((row) => row.t)).toEqual(expect.arrayContaining(TEXTS));
  });

  it('merges through the staging table, and counts only rows that changed or were deleted', async () => {
    const { store: copied, schema } = await store(true);
    const statements = await watchStatements(schema);
    const size = STAGED_MIN_ROWS + 30;
    const records = Array.from({ length: size }, (_, index) => record(index));
    expect(await write(copied, records, 1)).toEqual({ written: size, unchanged: 0, deadLettered: 0 });
    expect(await statements()).toEqual([expect.stringMatching(INSERT)]);
    // A replay at another place (so the idle-page check does not skip it) rewrites nothing; one
    // changed row and one marked deleted are rewritten, and only they. The staging table is
    // emptied at every commit, so no batch merges an earlier one's rows again.
    await copied.records.markDeleted('acme', table, ['e8']);
    await query(`truncate "${schema}".seen`);
    expect(await write(copied, records.slice(0, size - 10), 2)).toEqual({ written: 1, unchanged: size - 11, deadLettered: 0 });
    const changed = records.map((one, index) => (index === 7 ? { ...one, fields: { ...one.fields, t: 'changed' } } : one));
    expect(await write(copied, changed, 3)).toEqual({ written: 1, unchanged: size - 1, deadLettered: 0 });
    expect(await query(`select count(*)::int as n from "${schema}".seen`)).toEqual([{ n: 2 }]);
    expect(await statements()).toEqual([expect.stringMatching(MERGE)]);
    expect(await copied.checkpoints.load('acme', 'events')).toMatchObject({ position: { page: 3 }, recordsSynced: size + 2 });
  });

  it('keeps a record with U+0000 in a column or in raw as a dead letter with the reason bound parameters give, and stores the rest', async () => {
    const records = Array.from({ length: STAGED_MIN_ROWS + 20 }, (_, index) => record(index));
    records[4] = { ...(records[4] as SyncRecord), fields: { ...(records[4] as SyncRecord).fields, t: 'cut \u0000 off' } };
    records[11] = { ...(records[11] as SyncRecord), raw: { id: 'e11', text: 'cut \u0000 off' } };
    const copied = await store(true);
    const boundStore = await store(false);
    const stored = { written: records.length - 2, unchanged: 0, deadLettered: 2 };
    expect(await write(copied.store, records, 1)).toEqual(stored);
    expect(await write(boundStore.store, records, 1)).toEqual(stored);
    const letters = (await copied.store.deadLetters.list({})).map((letter) => [letter.raw, letter.reason]);
    expect(letters).toEqual((await boundStore.store.deadLetters.list({})).map((letter) => [letter.raw, letter.reason]));
    expect(letters.map(([, reason]) => reason)).toEqual([
      expect.stringMatching(/invalid byte sequence for encoding "UTF8": 0x00.*\(SQLSTATE 22021\)/),
      expect.stringMatching(/unsupported Unicode escape sequence.*\(SQLSTATE 22P05\)/),
    ]);
    expect(await rows(copied.schema)).toEqual(await rows(boundStore.schema));
    // The connection is usable afterwards, and a refused value is no stored key: the next batch of new rows goes by COPY into the table again.
    const statements = await watchStatements(copied.schema);
    const next = Array.from({ length: STAGED_MIN_ROWS }, (_, index) => record(index + 1000));
    expect(await write(copied.store, next, 2)).toEqual({ written: STAGED_MIN_ROWS, unchanged: 0, deadLettered: 0 });
    expect(await statements()).toEqual([expect.stringMatching(INSERT)]);
  });

  it("inserts a first backfill's batches; a batch with a stored row merges whole, loses and repeats no row, counts exactly, and the stream merges from then on", async () => {
    const { store: copied, schema } = await store(true);
    const statements = await watchStatements(schema);
    const first = Array.from({ length: 300 }, (_, index) => record(index));
    expect(await write(copied, first, 1)).toEqual({ written: 300, unchanged: 0, deadLettered: 0 });
    expect(await statements()).toEqual([expect.stringMatching(INSERT)]);
    // A page shifted upstream: the next batch repeats 50 stored rows (one of them changed) before 250 new ones.
    await query(`truncate "${schema}".seen`);
    const shifted = Array.from({ length: 300 }, (_, index) => record(index + 250)).map((one) =>
      one.id === 'e260' ? { ...one, fields: { ...one.fields, t: 'changed' } } : one,
    );
    expect(await write(copied, shifted, 2)).toEqual({ written: 251, unchanged: 49, deadLettered: 0 });
    expect(await statements()).toEqual([expect.stringMatching(MERGE)]);
    expect(await query(`select count(*)::int as n, count(distinct id)::int as ids from "${schema}".events`)).toEqual([{ n: 550, ids: 550 }]);
    expect(await query(`select t from "${schema}".events where id = 'e260'`)).toEqual([{ t: 'changed' }]);
    // The failed insert left nothing behind: exactly the merge's rows were written, and the checkpoint counts each once.
    expect(await query(`select count(*)::int as n from "${schema}".seen`)).toEqual([{ n: 251 }]);
    expect(await copied.checkpoints.load('acme', 'events')).toMatchObject({ position: { page: 2 }, recordsSynced: 551 });
    // This stream merges from now on, new rows or not; another business's stream still inserts.
    await query(`truncate "${schema}".seen`);
    const fresh = Array.from({ length: STAGED_MIN_ROWS }, (_, index) => record(index + 2000));
    expect(await write(copied, fresh, 3)).toEqual({ written: STAGED_MIN_ROWS, unchanged: 0, deadLettered: 0 });
    expect(await statements()).toEqual([expect.stringMatching(MERGE)]);
    await query(`truncate "${schema}".seen`);
    const other = fresh.map((one) => ({ ...one, businessId: 'other' }));
    const otherBatch = { businessId: 'other', table, records: other, deadLetters: [], rawTexts: other.map((one) => jsonText(one.raw)) };
    expect(await copied.commit(otherBatch, { page: 1 })).toEqual({ written: STAGED_MIN_ROWS, unchanged: 0, deadLettered: 0 });
    expect(await statements()).toEqual([expect.stringMatching(INSERT)]);
  });

  it("stores each row of a first backfill's batch once when another writer stored one of them meanwhile and the server refuses another, which becomes a dead letter", async () => {
    const { store: copied, schema } = await store(true);
    const records = Array.from({ length: STAGED_MIN_ROWS + 10 }, (_, index) => record(index));
    expect(await write(copied, records.slice(0, 100), 1)).toEqual({ written: 100, unchanged: 0, deadLettered: 0 });
    // Another process stored the batch's last record as it is; the batch also carries a row the server refuses.
    const last = records.at(-1) as SyncRecord;
    await query(`insert into "${schema}".events (business_id, id, source, t, i, n, b, ts, raw, synced_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now())`, [
      last.businessId,
      last.id,
      last.source,
      last.fields.t,
      last.fields.i,
      last.fields.n,
      last.fields.b,
      last.fields.ts,
      jsonText(last.raw),
    ]);
    const batch = records.slice(100).map((one, index) => (index === 3 ? { ...one, fields: { ...one.fields, t: 'cut \u0000 off' } } : one));
    expect(await write(copied, batch, 2)).toEqual({ written: batch.length - 2, unchanged: 1, deadLettered: 1 });
    expect(await query(`select count(*)::int as n, count(distinct id)::int as ids from "${schema}".events`)).toEqual([
      { n: records.length - 1, ids: records.length - 1 },
    ]);
    expect((await copied.deadLetters.list({})).map((letter) => letter.reason)).toEqual([expect.stringMatching(/\(SQLSTATE 22021\)/)]);
    expect(await copied.checkpoints.load('acme', 'events')).toMatchObject({ position: { page: 2 }, recordsSynced: 100 + batch.length - 2 });
  });

  it('takes its flush limits from sink.flush, 5,000 records or a second by default', async () => {
    const schema = uniqueName('flush');
    cleanups.push(() => query(`drop schema if exists "${schema}" cascade`).then(() => undefined));
    const plain = await postgresSinkFactory.create({ type: 'postgres', url: postgresUrl, schema }, { logger });
    cleanups.push(() => plain.close());
    expect(plain.capabilities).toEqual({ maxBatchSize: 10_000, flush: { maxRows: 5000, maxMs: 1000 } });
    const small = await postgresSinkFactory.create({ type: 'postgres', url: postgresUrl, schema, flush: { maxRows: 200, maxMs: 0 } }, { logger });
    cleanups.push(() => small.close());
    expect(small.capabilities).toEqual({ maxBatchSize: 1000, flush: { maxRows: 200, maxMs: 0 } });
  });
});
