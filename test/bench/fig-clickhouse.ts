import { randomBytes } from 'node:crypto';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { createSink } from '../../connectors/registry.js';
import { recordRow } from '../../connectors/clickhouse/mapping.js';
import { normalizePage } from '../../src/normalize/index.js';
import type { JsonObject, Sink, SyncRecord } from '../../src/sink/sink.js';
import { builtinStreams } from '../../src/source/streams/builtin-streams.js';
import { parseJsonExact } from '../../src/source/upstream/read-response.js';
import { buildCli } from '../integration/support/cli-build.js';
import { firstBusiness, rawWalk, type RawCall } from '../support/raw-walk.js';
import { silentLogger } from '../support/silent-logger.js';
import { startSimulatorChild } from '../support/simulator-child.js';
import { measureInChild, peakOf, type MemoryChildReport } from './memory-child-spawn.js';
import { fixed, megabytes, perSecond, verdict, type BenchContext, type BenchRow } from './result.js';

const TARGET = 0.8;
const CEILING = 250 * 1024 * 1024;
const ROUNDS = 2;
/** A drop of a database of 300k rows took over 30 s (the client's default) on a busy machine. */
const REQUEST_TIMEOUT_MS = 300_000;

interface Page {
  readonly records: readonly SyncRecord[];
  readonly position: JsonObject;
}

/**
 * The clickhouse figure: the sink writing the engine's normalized pages (the checkpoint loaded
 * first, as a run starts; then 500 calls a write, each with its position: the rows' insert and the
 * checkpoint's insert into its Buffer table, the ids of a first backfill known new without a read)
 * against the raw bulk path on the same rows in the same run: one `@clickhouse/client` JSONEachRow
 * insert per page of the same rows into the same table. Neither side fetches (pages are fetched and
 * normalized once, before); each writes into a table created beforehand in a fresh database, the
 * two taking turns page by page; the figure is the time each spent over two such rounds. Then the
 * peak RSS of a 300k-call backfill into ClickHouse, in a compiled child as figure 5's.
 */
export async function benchClickHouse(ctx: BenchContext): Promise<BenchRow[]> {
  const url = new URL(process.env.CALLSYNC_TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123').origin;
  const calls = ctx.quick ? 40_000 : 200_000;
  const pages = await fetchPages(calls);
  const client = createClient({ url, request_timeout: REQUEST_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
  const seconds = { pipeline: 0, raw: 0 };
  const roundRatios: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const spent = await measureInterleaved(client, url, pages);
      seconds.raw += spent.raw;
      seconds.pipeline += spent.pipeline;
      roundRatios.push(spent.raw / spent.pipeline);
      const records = recordsOf(pages);
      ctx.log(
        `clickhouse: round ${round + 1}: pipeline ${perSecond(records / spent.pipeline)}, raw ${perSecond(records / spent.raw)}, ${fixed(spent.raw / spent.pipeline)}`,
      );
    }
  } finally {
    await client.close();
  }
  const written = recordsOf(pages) * ROUNDS;
  const pipeline = written / seconds.pipeline;
  const raw = written / seconds.raw;
  const ratio = pipeline / raw;
  const rows: BenchRow[] = [
    {
      figure: 'clickhouse: throughput vs raw insert',
      measured: `${fixed(ratio)} (${perSecond(pipeline)})`,
      target: `≥ ${TARGET}`,
      baseline: perSecond(raw),
      status: verdict(ratio >= TARGET),
      details: { calls, rounds: ROUNDS, pipelinePerSecond: pipeline, rawPerSecond: raw, ratio, roundRatios },
    },
  ];
  ctx.log('clickhouse: peak RSS of a 300k-call backfill');
  const memory = await backfillMemory(url, 300_000);
  const peak = peakOf(memory);
  rows.push({
    figure: 'clickhouse: peak RSS, 300k-call backfill',
    measured: `${megabytes(peak)} (at start ${megabytes(memory.startRss)}; ${perSecond(memory.records / memory.seconds)})`,
    target: '≤ 250 MB',
    status: verdict(peak <= CEILING && memory.failures.length === 0 && memory.records === 300_000),
    details: { ...memory, peak },
  });
  return rows;
}

/** One business's calls in pages of 500, fetched once from a simulator child and normalized as the engine does. */
async function fetchPages(calls: number): Promise<Page[]> {
  const sim = await startSimulatorChild({ calls, seed: 3 });
  const source = firstBusiness(sim, 500);
  const raws: RawCall[][] = [];
  try {
    await rawWalk(source, (page) => void raws.push(page));
  } finally {
    await sim.close();
  }
  const descriptor = builtinStreams.get('calls');
  if (descriptor === undefined) throw new Error('no calls stream');
  const context = { recordingsBaseUrl: 'https://recordings.example', v2TimeZone: 'UTC' };
  return raws.map((page, index) => {
    // Parsed again as the engine parses a body, so the sink sees values of the same shapes.
    const parsed = parseJsonExact(JSON.stringify(page)) as JsonObject[];
    const { records } = normalizePage(parsed, descriptor.normalize, context, source.businessId, descriptor.name, descriptor.source);
    return { records, position: { cursor: String(index) } };
  });
}

function recordsOf(pages: readonly Page[]): number {
  return pages.reduce((sum, page) => sum + page.records.length, 0);
}

/**
 * Seconds each side spent writing every page, each into a fresh database whose calls table the
 * sink's `prepare` made, the two sides taking turns page by page (which goes first alternating):
 * on a shared machine the load moves within seconds, and so meets both sides alike.
 */
async function measureInterleaved(client: ClickHouseClient, url: string, pages: readonly Page[]): Promise<{ raw: number; pipeline: number }> {
  const table = builtinStreams.get('calls')?.table;
  if (table === undefined) throw new Error('no calls stream');
  const databases = [0, 1].map(() => `t_bench_ch_${randomBytes(4).toString('hex')}`);
  const sinks = await Promise.all(
    databases.map((database) => createSink({ type: 'clickhouse', url, database, requestTimeoutMs: REQUEST_TIMEOUT_MS }, { logger: silentLogger() })),
  );
  const [rawSink, sink] = sinks as [Sink, Sink];
  const spent = { raw: 0, pipeline: 0 };
  try {
    for (const each of sinks) await each.prepare([table]);
    const businessId = pages[0]?.records[0]?.businessId ?? 'biz-1';
    let started = performance.now();
    // As the engine starts a stream's run: the stored checkpoint first.
    await sink.checkpoints.load(businessId, table.stream);
    spent.pipeline += (performance.now() - started) / 1000;
    let version = Date.now() * 1000;
    for (const [index, page] of pages.entries()) {
      for (const side of index % 2 === 0 ? (['raw', 'pipeline'] as const) : (['pipeline', 'raw'] as const)) {
        started = performance.now();
        if (side === 'pipeline') {
          await sink.write({ businessId, table, records: page.records, deadLetters: [] }, page.position);
        } else {
          const syncedAt = new Date().toISOString().slice(0, 19).replace('T', ' ');
          version += 1;
          const values = page.records.map((record) => recordRow(table, record, JSON.stringify(record.raw), version, syncedAt));
          await client.insert({ table: `${databases[0] ?? ''}.${table.table}`, values, format: 'JSONEachRow' });
        }
        spent[side] += (performance.now() - started) / 1000;
      }
    }
    return spent;
  } finally {
    await Promise.all([rawSink.close(), sink.close()]);
    for (const database of databases) await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  }
}

async function backfillMemory(url: string, calls: number): Promise<MemoryChildReport> {
  const build = await buildCli(['src', 'connectors', 'simulator', 'test/bench', 'test/support']);
  const sim = await startSimulatorChild({ calls, seed: 5 });
  const database = `t_bench_ch_${randomBytes(4).toString('hex')}`;
  const client = createClient({ url, request_timeout: REQUEST_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
  try {
    return await measureInChild(build, 'clickhouse-memory-child', sim, [JSON.stringify({ type: 'clickhouse', url, database })]);
  } finally {
    await sim.close();
    await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
    await client.close();
    build.remove();
  }
}
