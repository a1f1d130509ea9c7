import { randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetConfigSchema, parquetSinkFactory } from '../../connectors/parquet/index.js';
import { recordRow, rowLayout } from '../../connectors/parquet/mapping.js';
import { callColumns } from '../../src/normalize/index.js';
import { jsonText } from '../../src/sink/json-text.js';
import type { ColumnValue, StreamTable, SyncRecord } from '../../src/sink/sink.js';
import { buildCli } from '../integration/support/cli-build.js';
import { silentLogger } from '../support/silent-logger.js';
import { S3_TEST_CREDENTIALS, startS3Server } from '../support/s3-server.js';
import { startSimulatorChild } from '../support/simulator-child.js';
import { measureInChild, peakOf, type MemoryChildReport } from './memory-child-spawn.js';
import { fixed, megabytes, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';

/** The engine's page: what one flush (one file) holds. */
const FLUSH = 500;
const callsTable: StreamTable = { stream: 'calls', table: 'calls', columns: callColumns };

/**
 * The Parquet sink against DuckDB writing the same Parquet files itself: the same calls (as the
 * normalize stage hands them over), one flush of 500 after another. Every writer stays open for the
 * whole run and they take turns file by file (the order rotating), so a busy machine slows each
 * alike; only the writes are timed. The pipeline is `sink.write`: the file (appender, COPY, synced
 * and renamed into place) and then the state store's commit (checkpoint, dead letters, the keys
 * reconcile reads). Into a folder the like-for-like baseline is DuckDB's appender and `COPY` with
 * each file synced and renamed into place, as the sink must before its checkpoint may move; DuckDB
 * alone (`COPY` to the final name, nothing synced) is shown beside it. Into a bucket (s3rver): the
 * sink against `COPY` to a local file then one PutObject of it. Then the peak RSS of a 300k-call
 * backfill into Parquet, in a compiled child of its own, the simulator in another.
 */
export async function benchParquet(ctx: BenchContext): Promise<BenchRow[]> {
  const count = ctx.quick ? 60_000 : 200_000;
  const records = Array.from({ length: count }, (_, index) => call(index));
  ctx.log(`parquet: ${count} calls in files of ${FLUSH}, file by file in turn: the sink, DuckDB with each file synced, DuckDB alone`);
  const folder = join(ctx.tmpDir, 'parquet-folder');
  const [sink, durable, raw] = (await inTurns(records, [
    await sinkWriter(folder, { type: 'folder', path: join(folder, 'lake') }),
    await rawWriter(join(folder, 'durable'), { durable: true }),
    await rawWriter(join(folder, 'raw'), { durable: false }),
  ])) as [Spent, Spent, Spent];
  const [sinkRate, durableRate, rawRate] = [count / sink.seconds, count / durable.seconds, count / raw.seconds];
  const ratio = sinkRate / durableRate;
  const rows: BenchRow[] = [
    {
      figure: `parquet throughput, local folder (${count / 1000}k calls, files of ${FLUSH})`,
      measured: `${perSecond(sinkRate)} = ${fixed(ratio)} of raw synced (${fixed(sinkRate / rawRate)} of raw unsynced); CPU per 1k records ${cpuPerThousand(sink, count)}`,
      target: '≥ 0.8 of raw',
      baseline: `${perSecond(durableRate)} (DuckDB appender + COPY per file, synced and renamed; CPU ${cpuPerThousand(durable, count)}); nothing synced ${perSecond(rawRate)}`,
      status: verdict(ratio >= 0.8),
      details: { count, flush: FLUSH, sink, durable, raw, sinkRate, durableRate, rawRate, ratio, cpuRatio: durable.cpuSeconds / sink.cpuSeconds },
    },
  ];
  rows.push(await s3Row(ctx, records.slice(0, ctx.quick ? 20_000 : 60_000)));
  rows.push(await memoryRow(ctx, 300_000));
  return rows;
}

/** One side of the figure: writes one flush as one file; closed once every file is written. */
interface Writer {
  write(records: readonly SyncRecord[], offset: number): Promise<void>;
  close(): Promise<void>;
}

/** What one writer spent over every flush: wall seconds, and CPU seconds of the whole process (DuckDB's and libuv's threads included). */
interface Spent {
  readonly seconds: number;
  readonly cpuSeconds: number;
}

/**
 * The writers' time, each over every flush, taking turns file by file in a rotating order. CPU time
 * says what a side costs whatever else the machine runs; wall time includes its waits for the disk.
 */
async function inTurns(records: readonly SyncRecord[], writers: readonly Writer[]): Promise<Spent[]> {
  const wall = writers.map(() => 0);
  const cpu = writers.map(() => 0);
  try {
    for (let from = 0, turn = 0; from < records.length; from += FLUSH, turn += 1) {
      const page = records.slice(from, from + FLUSH);
      for (let step = 0; step < writers.length; step += 1) {
        const index = (turn + step) % writers.length;
        const started = performance.now();
        const usage = process.cpuUsage();
        await (writers[index] as Writer).write(page, from + FLUSH);
        const used = process.cpuUsage(usage);
        wall[index] = (wall[index] as number) + (performance.now() - started) / 1000;
        cpu[index] = (cpu[index] as number) + (used.user + used.system) / 1e6;
      }
    }
  } finally {
    for (const writer of writers) await writer.close();
  }
  return writers.map((_, index) => ({ seconds: wall[index] as number, cpuSeconds: cpu[index] as number }));
}

/** CPU milliseconds per 1,000 records. */
function cpuPerThousand(spent: Spent, count: number): string {
  return `${fixed((spent.cpuSeconds * 1e6) / count, 1)} ms`;
}

/**
 * The same into an S3-compatible bucket (s3rver, in this process, on loopback): the sink against
 * DuckDB's `COPY` to a local file then one PutObject of it, per flush.
 */
async function s3Row(ctx: BenchContext, records: readonly SyncRecord[]): Promise<BenchRow> {
  const server = await startS3Server();
  await server.createBucket('bench-lake');
  const storage = { type: 's3', bucket: 'bench-lake', endpoint: server.endpoint, forcePathStyle: true, prefix: 'sink/', ...S3_TEST_CREDENTIALS } as const;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    endpoint: server.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    // As the sink's store sends: no checksum of each body where S3 does not require one.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  ctx.log(`parquet: ${records.length} calls in files of ${FLUSH} into s3rver, file by file in turn: the sink, DuckDB and PutObject`);
  const folder = join(ctx.tmpDir, 'parquet-s3');
  let spent: Spent[];
  try {
    spent = await inTurns(records, [
      await sinkWriter(folder, storage),
      await rawWriter(join(folder, 'raw'), {
        durable: false,
        upload: async (path) => {
          const key = `raw/stream=calls/business=bench/date=2026-11-28/${basename(path)}`;
          await client.send(new PutObjectCommand({ Bucket: 'bench-lake', Key: key, Body: await readFile(path) }));
          await rm(path);
        },
      }),
    ]);
  } finally {
    client.destroy();
    await server.close();
  }
  const [sink, raw] = spent as [Spent, Spent];
  const sinkRate = records.length / sink.seconds;
  const rawRate = records.length / raw.seconds;
  const ratio = sinkRate / rawRate;
  return {
    figure: `parquet throughput, S3-compatible (s3rver; ${records.length / 1000}k calls, files of ${FLUSH})`,
    measured: `${perSecond(sinkRate)} = ${fixed(ratio)} of raw; CPU per 1k records ${cpuPerThousand(sink, records.length)}`,
    target: '≥ 0.8 of raw',
    baseline: `${perSecond(rawRate)} (DuckDB COPY + PutObject per file; CPU ${cpuPerThousand(raw, records.length)}, s3rver's included)`,
    status: verdict(ratio >= 0.8),
    details: { count: records.length, flush: FLUSH, sink, raw, sinkRate, rawRate, ratio, cpuRatio: raw.cpuSeconds / sink.cpuSeconds },
  };
}

/** The sink as a backfill drives it: `write` of each flush with the position after it. */
async function sinkWriter(folder: string, storage: Record<string, unknown>): Promise<Writer> {
  const config = parquetConfigSchema.parse({ type: 'parquet', storage, state: { type: 'sqlite', path: join(folder, 'state.db') } });
  const sink = await parquetSinkFactory.create(config, { logger: silentLogger() });
  await sink.prepare([callsTable]);
  return {
    write: async (records, offset) => {
      await sink.write({ businessId: 'bench', table: callsTable, records, deadLetters: [] }, { offset });
    },
    close: async () => {
      await sink.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

/**
 * DuckDB writing the same files per flush, set up as the sink's encoder is (one thread, a table per
 * file), the same rows (a version each). `durable`: as the sink must before its checkpoint may move, each file written under a
 * temporary name, synced, renamed, its folder synced (DuckDB's `COPY` syncs nothing itself).
 * `upload`: what then becomes of the file (S3: one PutObject).
 */
async function rawWriter(root: string, options: { durable: boolean; upload?: (path: string) => Promise<void> }): Promise<Writer> {
  const folder = join(root, 'stream=calls', 'business=bench', 'date=2026-11-28');
  await mkdir(folder, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  const layout = rowLayout(callsTable);
  const syncedAt = new Date().toISOString();
  // A version per row, as the sink writes (microseconds, increasing): a constant column would encode to almost nothing.
  let version = BigInt(Date.now()) * 1000n;
  return {
    async write(records) {
      // As the encoder does: the last file's table dropped in the call that creates this one.
      await connection.run(`DROP TABLE IF EXISTS flush; CREATE TABLE flush (${layout.ddl})`);
      const appender = await connection.createAppender('flush');
      for (const record of records) {
        const row = recordRow(record, callsTable, (version += 1n), jsonText(record.raw), syncedAt);
        for (const value of row) {
          if (value === null) appender.appendNull();
          else if (typeof value === 'bigint') appender.appendBigInt(value);
          else if (typeof value === 'number') appender.appendBigInt(BigInt(value));
          else if (typeof value === 'boolean') appender.appendBoolean(value);
          else appender.appendVarchar(value);
        }
        appender.endRow();
      }
      appender.closeSync();
      const path = join(folder, `part-${randomUUID()}.parquet`);
      await connection.run(`COPY flush TO '${options.durable ? `${path}.tmp` : path}' (FORMAT parquet, COMPRESSION zstd)`);
      if (options.upload !== undefined) await options.upload(path);
      if (options.durable) {
        await synced(`${path}.tmp`);
        await rename(`${path}.tmp`, path);
        await synced(folder);
      }
    },
    async close() {
      connection.closeSync();
      instance.closeSync();
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function synced(path: string): Promise<void> {
  const handle = await open(path, 'r');
  await handle.sync();
  await handle.close();
}

function call(index: number): SyncRecord {
  const id = String(10_000_000 + index);
  const fields: Record<string, ColumnValue> = {
    to_number: '+15550100001',
    from_number: `+1555${String(2_000_000 + (index % 5_000_000)).padStart(7, '0')}`,
    direction: index % 3 === 0 ? 'outbound' : 'inbound',
    recording_url: `https://calls.example.com/acct/recordings/main/${id}.wav`,
    transcription_text: index % 4 === 0 ? null : `Caller ${index} asked about the order placed last week and the delivery window.`,
    created_at: new Date(Date.UTC(2026, 0, 1) + index * 37_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    duration_seconds: 30 + (index % 600),
    status: 'completed',
    updated_at: new Date(Date.UTC(2026, 0, 1) + index * 37_000 + 90_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    tracking_number_id: `tn-${index % 20}`,
  };
  return { businessId: 'bench', id, source: 'v1', fields, raw: { id: Number(id), ...fields, tags: ['bench'], customer_name: null } };
}

async function memoryRow(ctx: BenchContext, calls: number): Promise<BenchRow> {
  ctx.log(`parquet: a ${calls / 1000}k-call backfill into Parquet files in a child process`);
  const build = await buildCli(['src', 'connectors', 'simulator', 'test/bench', 'test/support']);
  const sim = await startSimulatorChild({ calls, seed: 5 });
  let run: MemoryChildReport;
  try {
    run = await measureInChild(build, 'parquet-memory-child', sim, [join(ctx.tmpDir, 'parquet-memory')]);
  } finally {
    await sim.close();
    build.remove();
  }
  const peak = peakOf(run);
  return {
    figure: `parquet: peak RSS, ${calls / 1000}k-call backfill`,
    measured: `${megabytes(peak)} (at start ${megabytes(run.startRss)}; ${perSecond(run.records / run.seconds)})`,
    target: '≤ 250 MB',
    status: verdict(peak <= 250 * 1024 * 1024 && run.failures.length === 0 && run.records === calls),
    details: { calls, ...run, peak },
  };
}
