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
import { firstLine, spawnNode, stopChild } from '../support/child-process.js';
import { silentLogger } from '../support/silent-logger.js';
import { S3_TEST_CREDENTIALS, startS3Server } from '../support/s3-server.js';
import { startSimulatorChild } from '../support/simulator-child.js';
import { fixed, megabytes, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';

/** The engine's page: what one flush (one file) holds. */
const FLUSH = 500;
const callsTable: StreamTable = { stream: 'calls', table: 'calls', columns: callColumns };

/**
 * The Parquet sink against DuckDB writing the same Parquet files itself: the same calls (as the
 * normalize stage hands them over), one flush of 500 after another, into a local folder. The
 * pipeline is `sink.write`: the file (appender, COPY, synced and renamed into place) and then the
 * state store's commit (checkpoint, dead letters, the copy reconcile reads). The raw path is
 * DuckDB's appender and `COPY … TO` the final file of the same rows, per flush, with nothing kept
 * elsewhere. Two alternating rounds, the best of each compared. Then the peak RSS of a 300k-call
 * backfill into Parquet, in a compiled child of its own, the simulator in another.
 */
export async function benchParquet(ctx: BenchContext): Promise<BenchRow[]> {
  const count = ctx.quick ? 60_000 : 200_000;
  const records = Array.from({ length: count }, (_, index) => call(index));
  const pipeline: number[] = [];
  const raw: number[] = [];
  const durable: number[] = [];
  for (let round = 0; round < 2; round += 1) {
    ctx.log(`parquet: round ${round + 1}, ${count} calls in files of ${FLUSH}: the sink, DuckDB alone, DuckDB with each file synced`);
    pipeline.push(await timed(() => throughSink(ctx, records, round)));
    raw.push(await timed(() => rawDuckDb(ctx, records, round, false)));
    durable.push(await timed(() => rawDuckDb(ctx, records, round, true)));
  }
  const sinkRate = count / Math.min(...pipeline);
  const rawRate = count / Math.min(...raw);
  const durableRate = count / Math.min(...durable);
  const ratio = sinkRate / rawRate;
  const rows: BenchRow[] = [
    {
      figure: `parquet throughput, local folder (${count / 1000}k calls, files of ${FLUSH})`,
      measured: `${perSecond(sinkRate)} = ${fixed(ratio)} of raw, ${fixed(sinkRate / durableRate)} of raw synced`,
      target: '≥ 0.8 of raw',
      baseline: `${perSecond(rawRate)} (DuckDB appender + COPY per file); synced and renamed ${perSecond(durableRate)}`,
      status: verdict(ratio >= 0.8),
      details: { count, flush: FLUSH, pipelineSeconds: pipeline, rawSeconds: raw, durableSeconds: durable, sinkRate, rawRate, durableRate, ratio },
    },
  ];
  rows.push(await s3Row(ctx, records.slice(0, ctx.quick ? 20_000 : 60_000)));
  rows.push(await memoryRow(ctx, 300_000));
  return rows;
}

/**
 * The same into an S3-compatible bucket (s3rver, in this process, on loopback): the sink against
 * DuckDB's `COPY` to a local file then one PutObject of it, per flush. Best of two alternating rounds.
 */
async function s3Row(ctx: BenchContext, records: readonly SyncRecord[]): Promise<BenchRow> {
  const server = await startS3Server();
  await server.createBucket('bench-lake');
  const storage = { type: 's3', bucket: 'bench-lake', endpoint: server.endpoint, forcePathStyle: true, ...S3_TEST_CREDENTIALS } as const;
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
  const pipeline: number[] = [];
  const raw: number[] = [];
  try {
    for (let round = 0; round < 2; round += 1) {
      ctx.log(`parquet: round ${round + 1}, ${records.length} calls in files of ${FLUSH} into s3rver: the sink, then DuckDB and PutObject`);
      pipeline.push(await timed(() => throughSink(ctx, records, round, { ...storage, prefix: `sink-${round}/` })));
      raw.push(
        await timed(() =>
          rawDuckDb(ctx, records, round, false, async (path) => {
            const key = `raw-${round}/stream=calls/business=bench/date=2026-11-28/${basename(path)}`;
            await client.send(new PutObjectCommand({ Bucket: 'bench-lake', Key: key, Body: await readFile(path) }));
            await rm(path);
          }),
        ),
      );
    }
  } finally {
    client.destroy();
    await server.close();
  }
  const sinkRate = records.length / Math.min(...pipeline);
  const rawRate = records.length / Math.min(...raw);
  const ratio = sinkRate / rawRate;
  return {
    figure: `parquet throughput, S3-compatible (s3rver; ${records.length / 1000}k calls, files of ${FLUSH})`,
    measured: `${perSecond(sinkRate)} = ${fixed(ratio)} of raw`,
    target: '≥ 0.8 of raw',
    baseline: `${perSecond(rawRate)} (DuckDB COPY + PutObject per file)`,
    status: verdict(ratio >= 0.8),
    details: { count: records.length, flush: FLUSH, pipelineSeconds: pipeline, rawSeconds: raw, sinkRate, rawRate, ratio },
  };
}

async function timed(work: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

async function throughSink(ctx: BenchContext, records: readonly SyncRecord[], round: number, storage?: Record<string, unknown>): Promise<void> {
  const folder = join(ctx.tmpDir, `parquet-sink-${round}`);
  const config = parquetConfigSchema.parse({
    type: 'parquet',
    storage: storage ?? { type: 'folder', path: join(folder, 'lake') },
    state: { type: 'sqlite', path: join(folder, 'state.db') },
  });
  const sink = await parquetSinkFactory.create(config, { logger: silentLogger() });
  try {
    await sink.prepare([callsTable]);
    for (let from = 0; from < records.length; from += FLUSH) {
      await sink.write({ businessId: 'bench', table: callsTable, records: records.slice(from, from + FLUSH), deadLetters: [] }, { offset: from + FLUSH });
    }
  } finally {
    await sink.close();
  }
  await rm(folder, { recursive: true, force: true });
}

/**
 * DuckDB writing the same files per flush into the folder. `durable`: as the sink must before its
 * checkpoint may move, each file written under a temporary name, synced, renamed, its folder synced
 * (DuckDB's `COPY` syncs nothing itself).
 */
async function rawDuckDb(
  ctx: BenchContext,
  records: readonly SyncRecord[],
  round: number,
  durable: boolean,
  upload?: (path: string) => Promise<void>,
): Promise<void> {
  const folder = join(ctx.tmpDir, `parquet-raw-${round}`, 'stream=calls', 'business=bench', 'date=2026-11-28');
  await mkdir(folder, { recursive: true });
  // DuckDB set up as the sink's encoder is: one thread, a table per file.
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  const connection = await instance.connect();
  const layout = rowLayout(callsTable);
  try {
    const syncedAt = new Date().toISOString();
    for (let from = 0; from < records.length; from += FLUSH) {
      await connection.run(`CREATE TABLE flush (${layout.ddl})`);
      const appender = await connection.createAppender('flush');
      for (const record of records.slice(from, from + FLUSH)) {
        const row = recordRow(record, callsTable, BigInt(from), jsonText(record.raw), syncedAt);
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
      await connection.run(`COPY flush TO '${durable ? `${path}.tmp` : path}' (FORMAT parquet, COMPRESSION zstd)`);
      if (upload !== undefined) await upload(path);
      if (durable) {
        await synced(`${path}.tmp`);
        await rename(`${path}.tmp`, path);
        await synced(folder);
      }
      await connection.run('DROP TABLE flush');
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  await rm(join(ctx.tmpDir, `parquet-raw-${round}`), { recursive: true, force: true });
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

interface MemoryRun {
  readonly records: number;
  readonly seconds: number;
  readonly failures: readonly string[];
  readonly startRss: number;
  readonly peakRss: number;
  readonly vmHwm?: number;
}

async function memoryRow(ctx: BenchContext, calls: number): Promise<BenchRow> {
  ctx.log(`parquet: a ${calls / 1000}k-call backfill into Parquet files in a child process`);
  const build = await buildCli(['src', 'connectors', 'simulator', 'test/bench', 'test/support']);
  const sim = await startSimulatorChild({ calls, seed: 5 });
  let run: MemoryRun;
  try {
    const upstream = JSON.stringify({ baseUrl: sim.baseUrl, v2BaseUrl: sim.v2BaseUrl, recordingsBaseUrl: sim.recordingsBaseUrl, businesses: sim.businesses });
    const child = spawnNode(join(build.root, 'test/bench/parquet-memory-child.js'), [upstream, join(ctx.tmpDir, 'parquet-memory')]);
    try {
      run = JSON.parse(await firstLine(child, 600_000)) as MemoryRun;
    } finally {
      await stopChild(child);
    }
  } finally {
    await sim.close();
    build.remove();
  }
  const peak = Math.max(run.peakRss, run.vmHwm ?? 0);
  return {
    figure: `parquet: peak RSS, ${calls / 1000}k-call backfill`,
    measured: `${megabytes(peak)} (at start ${megabytes(run.startRss)}; ${perSecond(run.records / run.seconds)})`,
    target: '≤ 250 MB',
    status: verdict(peak <= 250 * 1024 * 1024 && run.failures.length === 0 && run.records === calls),
    details: { calls, ...run, peak },
  };
}
