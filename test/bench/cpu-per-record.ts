/**
 * CPU per record of figure 3's two sides, for comparing code changes on a busy machine (wall
 * time there says little): `npx tsx test/bench/cpu-per-record.ts [rounds] [calls] [sqlite|postgres]`.
 * One simulator child; rounds alternate the raw baseline and the pipeline in this process and
 * print each side's process CPU (user + system, this process only) per record, and the ratio.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import type { SinkConfig } from '../../connectors/registry.js';
import { backfillOnce } from './backfill-once.js';
import { benchConfig } from '../support/bench-config.js';
import { dropSchema, rawPostgresBaseline } from '../support/raw-postgres-baseline.js';
import { rawSqliteBaseline } from './raw-sqlite-baseline.js';
import { firstBusiness, rawWalk } from '../support/raw-walk.js';
import { cpuSeconds } from './process-cpu.js';
import { startSimulatorChild } from '../support/simulator-child.js';

const rounds = Number(process.argv[2] ?? 4);
const calls = Number(process.argv[3] ?? 40_000);
const target = process.argv[4] ?? 'sqlite';
const postgresUrl = process.env.CALLSYNC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const dir = tmpdir();

function cpuMicros(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

let simPid = 0;
async function measure(run: () => Promise<number>): Promise<{ perRecord: number; perSecond: number; simPerRecord: number }> {
  const cpu = cpuMicros();
  const sim = cpuSeconds(simPid);
  const wall = performance.now();
  const records = await run();
  return {
    perRecord: (cpuMicros() - cpu) / records,
    perSecond: records / ((performance.now() - wall) / 1000),
    simPerRecord: ((cpuSeconds(simPid) - sim) * 1e6) / records,
  };
}

const sim = await startSimulatorChild({ calls, seed: 3 });
const source = firstBusiness(sim, 500);
simPid = sim.process.pid!;
try {
  await rawWalk(source, () => undefined);
  const sums = { pipeline: 0, baseline: 0 };
  for (let round = 0; round < rounds; round++) {
    const tag = `${process.pid}-${round}`;
    const baseline = await measure(async () => {
      if (target === 'postgres') {
        const schema = `t_bench_cpu_raw_${tag.replace('-', '_')}`;
        try {
          return (await rawPostgresBaseline(postgresUrl, schema, source)).records;
        } finally {
          await dropSchema(postgresUrl, schema);
        }
      }
      const path = join(dir, `cpu-raw-${tag}.db`);
      try {
        return (await rawSqliteBaseline(path, source)).records;
      } finally {
        for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
      }
    });
    const pipeline = await measure(async () => {
      const schema = `t_bench_cpu_sink_${tag.replace('-', '_')}`;
      const path = join(dir, `cpu-sink-${tag}.db`);
      const sink: SinkConfig = target === 'postgres' ? { type: 'postgres', url: postgresUrl, schema } : { type: 'sqlite', path };
      try {
        const run = await backfillOnce(benchConfig(sim, sink, { streams: ['calls'], rateLimit: false, pageSize: 500, concurrency: 1 }));
        if (run.records !== calls) throw new Error(`synced ${run.records} of ${calls}: ${run.failures.join('; ')}`);
        return run.records;
      } finally {
        if (target === 'postgres') await dropSchema(postgresUrl, schema);
        else for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
      }
    });
    if (round > 0) {
      sums.pipeline += pipeline.perRecord;
      sums.baseline += baseline.perRecord;
    }
    process.stdout.write(
      `round ${round + 1}: pipeline ${pipeline.perRecord.toFixed(2)} µs/rec (${Math.round(pipeline.perSecond)}/s, sim ${pipeline.simPerRecord.toFixed(1)}), ` +
        `baseline ${baseline.perRecord.toFixed(2)} µs/rec (${Math.round(baseline.perSecond)}/s, sim ${baseline.simPerRecord.toFixed(1)}), cpu ratio ${(pipeline.perRecord / baseline.perRecord).toFixed(2)}\n`,
    );
  }
  if (rounds > 1) {
    const n = rounds - 1;
    process.stdout.write(
      `mean of rounds 2..${rounds}: pipeline ${(sums.pipeline / n).toFixed(2)} µs/rec, baseline ${(sums.baseline / n).toFixed(2)} µs/rec, ratio ${(sums.pipeline / sums.baseline).toFixed(3)}\n`,
    );
  }
} finally {
  await sim.close();
}
