import mysql from 'mysql2/promise';
import { createSink } from '../../connectors/registry.js';
import { chunks } from '../../src/base/chunks.js';
import { normalizePage } from '../../src/normalize/index.js';
import type { DeadLetter, JsonObject, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { parseJsonExact } from '../../src/source/upstream/read-response.js';
import { builtinStreams } from '../../src/source/streams/builtin-streams.js';
import { buildCli } from '../integration/support/cli-build.js';
import { firstBusiness, rawWalk, type RawCall } from '../support/raw-walk.js';
import { silentLogger } from '../support/silent-logger.js';
import { startSimulatorChild } from '../support/simulator-child.js';
import { measureInChild, peakOf, type MemoryChildReport } from './memory-child-spawn.js';
import { fixed, megabytes, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';

const PAGE_SIZE = 500;
/** Alternating rounds, the best of each side kept: this machine's speed drifts from one second to the next. */
const ROUNDS = 3;
const CEILING = 250 * 1024 * 1024;
const baseUrl = process.env.CALLSYNC_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';

/** One normalized page of calls, as the engine hands it to the sink, with the position after it. */
interface Page {
  readonly records: readonly SyncRecord[];
  readonly deadLetters: readonly DeadLetter[];
  readonly position: JsonObject;
}

/**
 * The mysql figure: the sink writing the calls the engine would give it, page by page with its
 * checkpoint, against a hand-written multi-row `insert … on duplicate key update` of the same
 * rows through mysql2 (one transaction per page), each into a fresh database of identical tables,
 * in the same run; three alternating rounds, the best of each (only the writes are timed, not making the database). Then the peak RSS of a 300k-call
 * backfill into MySQL in a compiled child process, as figure 5 measures SQLite.
 */
export async function benchMysql(ctx: BenchContext): Promise<BenchRow[]> {
  const calls = ctx.quick ? 40_000 : 200_000;
  ctx.log(`mysql: reading ${calls} calls from a simulator child`);
  const sim = await startSimulatorChild({ calls, seed: 3 });
  const source = firstBusiness(sim, PAGE_SIZE);
  const raws: RawCall[][] = [];
  try {
    await rawWalk(source, (page) => void raws.push(page));
  } finally {
    await sim.close();
  }
  const descriptor = builtinStreams.get('calls');
  if (descriptor === undefined) throw new Error('no calls stream');
  const context = { recordingsBaseUrl: 'https://recordings.example', v2TimeZone: 'UTC' };
  // Parsed again as the engine parses a body, so both sides write values of the same shapes.
  const pages: Page[] = raws.map((page, index) => ({
    ...normalizePage(
      parseJsonExact(JSON.stringify(page)) as JsonObject[],
      descriptor.normalize,
      context,
      source.businessId,
      descriptor.name,
      descriptor.source,
    ),
    position: { cursor: String(index) },
  }));
  const results: { pipeline: number; baseline: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const baseline = await rawUpsert(descriptor.table, pages, round);
    const pipeline = await pipelineWrite(descriptor.table, pages, round);
    const rate = { baseline: calls / baseline, pipeline: calls / pipeline };
    ctx.log(`mysql round ${round + 1}: pipeline ${perSecond(rate.pipeline)}, raw upsert ${perSecond(rate.baseline)}`);
    results.push(rate);
  }
  const pipeline = Math.max(...results.map((r) => r.pipeline));
  const baseline = Math.max(...results.map((r) => r.baseline));
  const ratio = pipeline / baseline;
  const rows: BenchRow[] = [
    {
      figure: `mysql. throughput, MySQL/MariaDB (${calls / 1000}k calls)`,
      measured: `${perSecond(pipeline)} (${fixed(ratio)} of raw)`,
      target: '≥ 0.8 of raw',
      baseline: perSecond(baseline),
      status: verdict(ratio >= 0.8),
      details: { calls, pageSize: PAGE_SIZE, rounds: results, ratio },
    },
  ];
  rows.push(await memoryRow(ctx));
  return rows;
}

/** Seconds since `started` (`process.hrtime.bigint()`). */
function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** A database of its own for one side of one round, with the sink's tables; dropped after `body`. */
async function withDatabase<T>(label: string, body: (url: string) => Promise<T>): Promise<T> {
  const name = `t_bench_mysql_${label}_${process.pid}`;
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const admin = await mysql.createConnection({ uri: baseUrl });
  try {
    await admin.query(`drop database if exists \`${name}\``);
    await admin.query(`create database \`${name}\` character set utf8mb4 collate utf8mb4_bin`);
    try {
      return await body(url.toString());
    } finally {
      await admin.query(`drop database if exists \`${name}\``);
    }
  } finally {
    await admin.end();
  }
}

/** Opens the sink on `url` and prepares the calls table, outside the timed part. */
async function preparedSink(url: string, table: StreamTable) {
  const sink = await createSink({ type: 'mysql', url }, { logger: silentLogger() });
  await sink.prepare([table]);
  return sink;
}

/** Seconds the sink takes to write every page, from its first write to the last commit (the database and its tables made before). */
async function pipelineWrite(table: StreamTable, pages: readonly Page[], round: number): Promise<number> {
  return withDatabase(`pipeline_${round}`, async (url) => {
    const sink = await preparedSink(url, table);
    try {
      const started = process.hrtime.bigint();
      let position: JsonObject = {};
      for (const page of pages) {
        const parts = chunks(page.records, sink.capabilities.maxBatchSize);
        for (const [index, records] of (parts.length === 0 ? [page.records] : parts).entries()) {
          const last = index === Math.max(0, parts.length - 1);
          await sink.write(
            { businessId: page.records[0]?.businessId ?? '', table, records, deadLetters: index === 0 ? page.deadLetters : [] },
            last ? page.position : position,
          );
        }
        position = page.position;
      }
      return secondsSince(started);
    } finally {
      await sink.close();
    }
  });
}

/** Seconds of the raw bulk path over every page: one multi-row upsert per page in its own transaction, every column set from the new row. */
async function rawUpsert(table: StreamTable, pages: readonly Page[], round: number): Promise<number> {
  return withDatabase(`raw_${round}`, async (url) => {
    await (await preparedSink(url, table)).close();
    const connection = await mysql.createConnection({ uri: url, charset: 'UTF8MB4_BIN' });
    try {
      const columns = ['business_id', 'id', 'source', ...table.columns.map((column) => column.name), 'raw', 'synced_at'];
      const tuple = `(${columns.map(() => '?').join(', ')})`;
      const update = columns
        .slice(2)
        .map((column) => `\`${column}\` = values(\`${column}\`)`)
        .join(', ');
      const statements = new Map<number, string>();
      const text = (rows: number): string => {
        let statement = statements.get(rows);
        if (statement === undefined) {
          statement = `insert into calls (${columns.map((column) => `\`${column}\``).join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(', ')} on duplicate key update ${update}`;
          statements.set(rows, statement);
        }
        return statement;
      };
      const started = process.hrtime.bigint();
      for (const page of pages) {
        if (page.records.length === 0) continue;
        const now = new Date().toISOString();
        const values = page.records.flatMap((record: SyncRecord) => [
          record.businessId,
          record.id,
          record.source,
          ...table.columns.map((column) => record.fields[column.name] ?? null),
          JSON.stringify(record.raw),
          now,
        ]);
        await connection.query('start transaction');
        await connection.execute(text(page.records.length), values);
        await connection.query('commit');
      }
      return secondsSince(started);
    } finally {
      await connection.end();
    }
  });
}

interface MemoryRun extends MemoryChildReport {
  readonly secondHalfMax: number;
}

/** Peak RSS of a compiled child backfilling 300k calls into MySQL (`mysql-memory-child.ts`), the simulator in another child. */
async function memoryRow(ctx: BenchContext): Promise<BenchRow> {
  const calls = 300_000;
  const build = await buildCli(['src', 'connectors', 'simulator', 'test/bench', 'test/support']);
  try {
    ctx.log(`mysql memory: backfilling ${calls} calls into MySQL in a child process`);
    const sim = await startSimulatorChild({ calls, seed: 5 });
    try {
      let run: MemoryRun | undefined;
      await withDatabase('memory', async (url) => {
        run = await measureInChild<MemoryRun>(build, 'mysql-memory-child', sim, [url], 900_000);
      });
      if (run === undefined) throw new Error('the memory child said nothing');
      const peak = peakOf(run);
      return {
        figure: 'mysql. peak RSS, 300k calls into MySQL/MariaDB',
        measured: `${megabytes(peak)} (at start ${megabytes(run.startRss)}; 2nd half ${megabytes(run.secondHalfMax)})`,
        target: '≤ 250 MB',
        status: verdict(peak <= CEILING && run.failures.length === 0 && run.records === calls),
        details: { calls, ...run, peak },
      };
    } finally {
      await sim.close();
    }
  } finally {
    build.remove();
  }
}
