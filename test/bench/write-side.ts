/**
 * The write side of figure 3 alone, CPU per record: `npx tsx test/bench/write-side.ts [rounds] [calls]`.
 * Pages are fetched once from a simulator child and normalized once; then rounds alternate the
 * raw baseline's insert loop and the engine's writes (in parts of the sink's batch size, the last
 * with the page's position) into the SQLite sink over the same pages, with no
 * network in either, so a change to the sink shows even on a busy machine (compare medians).
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createSink } from '../../connectors/registry.js';
import { chunks } from '../../src/base/chunks.js';
import { normalizePage } from '../../src/normalize/index.js';
import { parseJsonExact } from '../../src/source/upstream/read-response.js';
import type { JsonObject } from '../../src/sink/sink.js';
import { builtinStreams } from '../../src/source/streams/builtin-streams.js';
import { rawPageWriter } from './raw-sqlite-baseline.js';
import { firstBusiness, rawRow, rawWalk, type RawCall } from '../support/raw-walk.js';
import { silentLogger } from '../support/silent-logger.js';
import { startSimulatorChild } from '../support/simulator-child.js';

const rounds = Number(process.argv[2] ?? 12);
const calls = Number(process.argv[3] ?? 40_000);
const sim = await startSimulatorChild({ calls, seed: 3 });
const source = firstBusiness(sim, 500);
const pages: RawCall[][] = [];
try {
  await rawWalk(source, (page) => void pages.push(page));
} finally {
  await sim.close();
}
const descriptor = builtinStreams.get('calls')!;
const context = { recordingsBaseUrl: 'https://recordings.example', v2TimeZone: 'UTC' };
// Parsed again as the engine parses a body, so the sink sees values of the same shapes.
const normalizedPages = pages.map((page, index) => {
  const raws = parseJsonExact(JSON.stringify(page)) as JsonObject[];
  return { ...normalizePage(raws, descriptor.normalize, context, source.businessId, descriptor.name, descriptor.source), position: { cursor: String(index) } };
});

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
}

/** Both loops yield a turn per page, as the pipeline does between pages. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function rawLoop(path: string): Promise<void> {
  const db = new Database(path);
  const writePage = rawPageWriter(db);
  for (const page of pages) {
    const now = new Date().toISOString();
    writePage(page.map((call) => rawRow(source.businessId, call, now)));
    await turn();
  }
  db.close();
}

async function sinkLoop(path: string): Promise<void> {
  const sink = await createSink({ type: 'sqlite', path }, { logger: silentLogger() });
  let position: JsonObject = {};
  for (const page of normalizedPages) {
    const parts = chunks(page.records, sink.capabilities.maxBatchSize);
    for (const [index, records] of (parts.length === 0 ? [page.records] : parts).entries()) {
      const last = index === Math.max(0, parts.length - 1);
      await sink.write(
        { businessId: source.businessId, table: descriptor.table, records, deadLetters: index === 0 ? page.deadLetters : [] },
        last ? page.position : position,
      );
    }
    position = page.position;
    await turn();
  }
  await sink.close();
}

const perRecord = { raw: [] as number[], sink: [] as number[] };
for (let round = 0; round < rounds; round++) {
  for (const [side, loop] of [
    ['raw', rawLoop],
    ['sink', sinkLoop],
  ] as const) {
    const path = join(tmpdir(), `callsync-write-side-${process.pid}-${side}-${round}.db`);
    const started = cpuMicros();
    try {
      await loop(path);
    } finally {
      removeDatabase(path);
    }
    // The first round warms both sides up and is left out.
    if (round > 0) perRecord[side].push((cpuMicros() - started) / calls);
  }
}
const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const [raw, sink] = [median(perRecord.raw), median(perRecord.sink)];
process.stdout.write(
  `median CPU per record over ${rounds - 1} rounds: raw ${raw.toFixed(2)} µs, sink ${sink.toFixed(2)} µs, sink - raw ${(sink - raw).toFixed(2)} µs\n`,
);
