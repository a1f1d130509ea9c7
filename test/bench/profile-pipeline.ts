/**
 * For profiling figures 3 and 4 by hand: one pipeline backfill against a simulator child, e.g.
 * `node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx test/bench/profile-pipeline.ts sqlite|postgres|raw-sqlite 200000`.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from '../support/bench-config.js';
import { dropSchema } from '../support/raw-postgres-baseline.js';
import { rawSqliteBaseline } from './raw-sqlite-baseline.js';
import { firstBusiness, rawWalk } from '../support/raw-walk.js';
import { startSimulatorChild } from '../support/simulator-child.js';

const target = process.argv[2] ?? 'sqlite';
const calls = Number(process.argv[3] ?? 200_000);
const postgresUrl = process.env.CALLSYNC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `t_bench_profile_${process.pid}`;
const sink: SinkConfig =
  target === 'postgres' ? { type: 'postgres', url: postgresUrl, schema } : { type: 'sqlite', path: join(tmpdir(), `callsync-profile-${process.pid}.db`) };
const sim = await startSimulatorChild({ calls, seed: 3 });
try {
  await rawWalk(firstBusiness(sim, 500), () => undefined);
  if (target === 'raw-sqlite') {
    const raw = await rawSqliteBaseline(join(tmpdir(), `callsync-profile-raw-${process.pid}.db`), firstBusiness(sim, 500));
    process.stdout.write(`raw-sqlite: ${raw.records} records in ${raw.seconds.toFixed(1)} s = ${Math.round(raw.records / raw.seconds)} rec/s\n`);
  } else {
    const run = await backfillOnce(benchConfig(sim, sink, { streams: ['calls'], rateLimit: false, concurrency: 1 }));
    process.stdout.write(`${target}: ${run.records} records in ${run.seconds.toFixed(1)} s = ${Math.round(run.records / run.seconds)} rec/s\n`);
  }
} finally {
  await sim.close();
  if (target === 'postgres') await dropSchema(postgresUrl, schema);
}
