import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pLimit from 'p-limit';
import { Agent, request } from 'undici';
import { openObjectStore } from '../../connectors/object-storage/index.js';
import { archiveKey, type RecordingRef } from '../../connectors/recordings/keys.js';
import type { SinkConfig } from '../../connectors/registry.js';
import type { CallsyncConfig } from '../../src/config/index.js';
import { planBusinesses } from '../../src/engine/sync/plan-businesses.js';
import { startArchiveRun } from '../../src/entry/cli/recordings/archive-run.js';
import { createMemoryRateLimiter } from '../../src/source/ratelimit/index.js';
import { buildCli } from '../integration/support/cli-build.js';
import { benchConfig, type UpstreamInfo } from '../support/bench-config.js';
import { silentLogger } from '../support/silent-logger.js';
import { startSimulatorChild } from '../support/simulator-child.js';
import { backfillOnce } from './backfill-once.js';
import { measureInChild, peakOf, type MemoryChildReport } from './memory-child-spawn.js';
import { fixed, megabytes, verdict, type BenchContext, type BenchRow } from './result.js';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const TARGET = 0.8;
const CEILING = 250 * MiB;
/** Recordings of 1 to 16 MiB (a WAV at 8 kHz, 16 bit, mono: about 1 to 17 minutes), drawn per recording. */
const RECORDING_BYTES = '1048576-16777216';
/**
 * Four businesses of 80 calls: about 60 % of the simulator's calls have a recording, so about
 * 190 recordings and 1.6 GiB in all (the figure checks it is at least 1 GiB).
 */
const BUSINESSES = 4;
const CALLS_PER_BUSINESS = 80;
/** The archive's default: downloads in flight at once. */
const CONCURRENCY = 2;

/** What the archive section of the bench's config says: the default concurrency, a budget that never waits. */
function recordingsSection(folder: string): Record<string, unknown> {
  return { archive: { type: 'folder', path: folder }, concurrency: CONCURRENCY, budget: { requestsPerMinute: 1_000_000, countAgainstApi: false } };
}

interface Turn {
  readonly recordings: number;
  readonly bytes: number;
  readonly seconds: number;
}

/**
 * The recordings figure: the archive (`backfill --recordings`'s archive run: its state table in the
 * synced SQLite file, a folder store, the one exchange streaming each body through its SHA-256,
 * the checksum beside it) against a raw streaming copy of the same recordings from the same
 * simulator child into the same folder store (undici `request`, its body piped into `put`: a file
 * in staging, synced, renamed, the folder synced), both `CONCURRENCY` at a time. The calls are
 * synced once first; then the two take turns business by business (which goes first alternating),
 * each archive turn over a fresh copy of the synced file, so a load that moves within seconds meets
 * both alike. Then the peak RSS of a `backfill --recordings` of every business (at least 1 GiB of
 * recordings) in a compiled child, as figure 5.
 */
export async function benchRecordings(ctx: BenchContext): Promise<BenchRow[]> {
  const rounds = ctx.quick ? 2 : 4;
  const sim = await startSimulatorChild({
    calls: CALLS_PER_BUSINESS,
    businesses: BUSINESSES,
    seed: 33,
    flags: ['--recording-bytes', RECORDING_BYTES],
  });
  try {
    const upstream: UpstreamInfo = { baseUrl: sim.baseUrl, v2BaseUrl: sim.v2BaseUrl, recordingsBaseUrl: sim.recordingsBaseUrl, businesses: sim.businesses };
    const synced = join(ctx.tmpDir, 'recordings-synced.db');
    const sync = await backfillOnce(benchConfig(upstream, { type: 'sqlite', path: synced }, { streams: ['calls'], rateLimit: false }));
    if (sync.failures.length > 0) throw new Error(`recordings: the sync failed: ${sync.failures.join('; ')}`);
    const refs = linksOf(synced);
    const businesses = [...refs.keys()];
    const spent = { archive: 0, raw: 0 };
    let bytesPerRound = 0;
    const roundRatios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const inRound = { archive: 0, raw: 0 };
      let bytes = 0;
      for (const [index, businessId] of businesses.entries()) {
        const links = refs.get(businessId) ?? [];
        const folder = join(ctx.tmpDir, `recordings-${round}-${index}`);
        const archiveTurn = (): Promise<Turn> => archiveBusiness(ctx, upstream, synced, businessId, folder);
        const rawTurn = (): Promise<Turn> => rawCopy(links, `${folder}-raw`);
        const archiveFirst = (round + index) % 2 === 0;
        const first = await (archiveFirst ? archiveTurn() : rawTurn());
        const second = await (archiveFirst ? rawTurn() : archiveTurn());
        const [archived, raw] = archiveFirst ? [first, second] : [second, first];
        if (archived.recordings !== raw.recordings || archived.bytes !== raw.bytes)
          throw new Error(
            `recordings: ${businessId}: the archive stored ${archived.recordings} (${archived.bytes} bytes), the raw copy ${raw.recordings} (${raw.bytes} bytes)`,
          );
        inRound.archive += archived.seconds;
        inRound.raw += raw.seconds;
        bytes += raw.bytes;
        await rm(folder, { recursive: true, force: true });
        await rm(`${folder}-raw`, { recursive: true, force: true });
      }
      bytesPerRound = bytes;
      spent.archive += inRound.archive;
      spent.raw += inRound.raw;
      roundRatios.push(inRound.raw / inRound.archive);
      ctx.log(
        `recordings: round ${round + 1}: ${megabytes(bytes)}, archive ${fixed(bytes / MiB / inRound.archive, 1)} MiB/s, raw ${fixed(bytes / MiB / inRound.raw, 1)} MiB/s, ${fixed(inRound.raw / inRound.archive)}`,
      );
    }
    const recordings = [...refs.values()].reduce((sum, links) => sum + links.length, 0);
    const archiveRate = (bytesPerRound * rounds) / MiB / spent.archive;
    const rawRate = (bytesPerRound * rounds) / MiB / spent.raw;
    const ratio = spent.raw / spent.archive;
    return [
      {
        figure: `recordings: archive throughput (${recordings} recordings of 1–16 MiB, ${megabytes(bytesPerRound)}; folder, ${CONCURRENCY} at a time)`,
        measured: `${fixed(archiveRate, 1)} MiB/s = ${fixed(ratio)} of raw`,
        target: `≥ ${TARGET} of raw`,
        baseline: `${fixed(rawRate, 1)} MiB/s (undici request piped into the folder store's put)`,
        status: verdict(ratio >= TARGET),
        details: {
          recordings,
          bytesPerRound,
          rounds,
          concurrency: CONCURRENCY,
          archiveSeconds: spent.archive,
          rawSeconds: spent.raw,
          archiveRate,
          rawRate,
          ratio,
          roundRatios,
        },
      },
      await memoryRow(ctx, upstream, bytesPerRound),
    ];
  } finally {
    await sim.close();
  }
}

/** Every call's recording link in the synced file, by business, as the archive's state reads them. */
function linksOf(path: string): Map<string, RecordingRef[]> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .prepare<[], { business_id: string; id: string; recording_url: string; created_at: string }>(
        'select business_id, id, recording_url, created_at from calls where recording_url is not null order by business_id, id',
      )
      .all();
    const byBusiness = new Map<string, RecordingRef[]>();
    for (const row of rows) {
      const list = byBusiness.get(row.business_id) ?? [];
      list.push({ businessId: row.business_id, stream: 'calls', id: row.id, url: row.recording_url, createdAt: row.created_at });
      byBusiness.set(row.business_id, list);
    }
    return byBusiness;
  } finally {
    db.close();
  }
}

/** One business's recordings through the archive run `backfill --recordings` starts, over a fresh copy of the synced file. */
async function archiveBusiness(ctx: BenchContext, upstream: UpstreamInfo, synced: string, businessId: string, folder: string): Promise<Turn> {
  const path = `${folder}.db`;
  await copyFile(synced, path);
  const config: CallsyncConfig<SinkConfig> = benchConfig(
    upstream,
    { type: 'sqlite', path },
    { streams: ['calls'], rateLimit: false, extra: { recordings: recordingsSection(folder) } },
  );
  const plans = planBusinesses(config).filter((plan) => plan.name === businessId);
  const limiter = createMemoryRateLimiter({ maxWaitMs: config.upstream.maxWaitMs });
  const started = performance.now();
  const run = await startArchiveRun({ config, file: '(bench)', plans, limiter, logger: silentLogger(), secrets: [] });
  try {
    await run.finish();
  } finally {
    await run.close();
    await limiter.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const { archived, failed, expired, bytes } = run.totals;
  if (failed > 0 || expired > 0) throw new Error(`recordings: ${businessId}: ${failed} failed, ${expired} expired in the archive turn`);
  await rm(path, { force: true });
  ctx.log(`recordings: ${businessId}: archive ${archived} recordings, ${megabytes(bytes)} in ${fixed(seconds)} s`);
  return { recordings: archived, bytes, seconds };
}

/** The same recordings by hand: `request` and its body piped into the folder store's `put` under the archive's key. */
async function rawCopy(links: readonly RecordingRef[], folder: string): Promise<Turn> {
  const started = performance.now();
  const store = await openObjectStore({ type: 'folder', path: folder });
  const dispatcher = new Agent();
  const limit = pLimit(CONCURRENCY);
  let bytes = 0;
  try {
    await Promise.all(
      links.map((ref) =>
        limit(async () => {
          const answer = await request(ref.url, { dispatcher });
          if (answer.statusCode !== 200) throw new Error(`recordings: raw copy: ${ref.url} answered ${answer.statusCode}`);
          const stored = await store.put(archiveKey(ref, 'wav'), answer.body);
          bytes += stored.size;
        }),
      ),
    );
  } finally {
    await dispatcher.close();
    await store.close();
  }
  return { recordings: links.length, bytes, seconds: (performance.now() - started) / 1000 };
}

interface MemoryRun extends MemoryChildReport {
  readonly archived: number;
  readonly bytes: number;
}

/** `backfill --recordings` of every business, from scratch, in a compiled child of its own. */
async function memoryRow(ctx: BenchContext, upstream: UpstreamInfo, expectedBytes: number): Promise<BenchRow> {
  ctx.log(`recordings: backfill --recordings of ${megabytes(expectedBytes)} in a child process`);
  const build = await buildCli(['src', 'connectors', 'simulator', 'test/bench', 'test/support']);
  let run: MemoryRun;
  try {
    run = await measureInChild<MemoryRun>(build, 'recordings-memory-child', upstream, [join(ctx.tmpDir, 'recordings-memory')]);
  } finally {
    build.remove();
    await rm(join(ctx.tmpDir, 'recordings-memory'), { recursive: true, force: true });
  }
  const peak = peakOf(run);
  const whole = run.failures.length === 0 && run.bytes === expectedBytes && run.bytes >= GiB;
  return {
    figure: `recordings: peak RSS, backfill --recordings (${run.archived} recordings, ${fixed(run.bytes / GiB)} GiB)`,
    measured: `${megabytes(peak)} (at start ${megabytes(run.startRss)}; ${fixed(run.bytes / MiB / run.seconds, 1)} MiB/s with the sync)`,
    target: '≤ 250 MB while archiving ≥ 1 GiB',
    status: verdict(peak <= CEILING && whole),
    details: { ...run, peak, expectedBytes },
  };
}
