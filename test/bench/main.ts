/**
 * `npm run bench [-- --quick] [-- --only 1,3]`: every performance figure in one run, printed as a
 * table and written to bench-results.json. Reports only: exits 0 whatever the numbers, unless the
 * bench itself crashes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from '../support/child-process.js';
import { benchBudgetBackfill } from './fig-budget-backfill.js';
import { benchClickHouse } from './fig-clickhouse.js';
import { benchDuckDb } from './fig-duckdb.js';
import { benchFreshness } from './fig-freshness.js';
import { benchHubSpot } from './fig-hubspot.js';
import { benchIncremental } from './fig-incremental.js';
import { benchMemory } from './fig-memory.js';
import { benchMysql } from './fig-mysql.js';
import { benchParquet } from './fig-parquet.js';
import { benchRecordings } from './fig-recordings.js';
import { benchReplicas } from './fig-replicas.js';
import { benchSalesforce } from './fig-salesforce.js';
import { benchScheduler } from './fig-scheduler.js';
import { benchSimulatorPageRow } from './fig-simulator-page.js';
import { benchThroughput } from './fig-throughput.js';
import { benchWebhooks } from './fig-webhooks.js';
import { printTable } from './print-table.js';
import type { BenchContext, BenchRow } from './result.js';
import { writePerformanceDoc } from './write-performance-doc.js';
import { writeResults } from './write-results.js';

type Figure = (ctx: BenchContext) => Promise<BenchRow[]>;

/** Keyed by the figure numbers of test/bench/README.md; `--only` picks from these keys. */
const FIGURES: ReadonlyArray<readonly [string, string, Figure]> = [
  ['1', 'budget use, backfill', benchBudgetBackfill],
  ['2', 'budget use, 3 run replicas', benchReplicas],
  ['3,4', 'throughput, SQLite and Postgres', benchThroughput],
  ['5', 'memory', benchMemory],
  ['6', 'scheduler scale', benchScheduler],
  ['7', 'incremental cost', benchIncremental],
  ['freshness', 'freshness in run', benchFreshness],
  ['webhooks', 'webhook to row in run', benchWebhooks],
  ['page', 'simulator page', benchSimulatorPageRow],
  ['hubspot', 'hubspot throughput at HubSpot limits', benchHubSpot],
  ['9', 'salesforce: API requests per 1,000 records', benchSalesforce],
  ['clickhouse', 'clickhouse: throughput vs raw insert, peak RSS', benchClickHouse],
  ['mysql', 'mysql: pipeline against a raw multi-row upsert, peak RSS', benchMysql],
  ['duckdb', 'duckdb: throughput against the appender and merge, peak RSS', benchDuckDb],
  ['parquet', 'parquet: sink against DuckDB writing the files itself; peak RSS', benchParquet],
  ['recordings', 'recordings: archive against a raw streaming copy; peak RSS archiving 1 GiB', benchRecordings],
];

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
const only = values.only?.split(',');
const selected = FIGURES.filter(([key]) => only === undefined || key.split(',').some((k) => only.includes(k)));
const startedAt = new Date();
const tmpDir = await mkdtemp(join(tmpdir(), 'callsync-bench-'));
const ctx: BenchContext = {
  quick: values.quick,
  tmpDir,
  postgresUrl: process.env.CALLSYNC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  redisUrl: process.env.CALLSYNC_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
  log: (line) => process.stderr.write(`[bench +${((Date.now() - startedAt.getTime()) / 1000).toFixed(0)}s] ${line}\n`),
};

const rows: BenchRow[] = [];
try {
  for (const [key, name, figure] of selected) {
    ctx.log(`figure ${key}: ${name}`);
    try {
      rows.push(...(await figure(ctx)));
    } catch (error) {
      // One figure's crash (a service down, a worker that will not start) must not hide the others.
      const message = error instanceof Error ? error.message : String(error);
      ctx.log(`figure ${key} failed: ${error instanceof Error ? (error.stack ?? message) : message}`);
      rows.push({ figure: `${key}. ${name}`, measured: `error: ${message.slice(0, 80)}`, target: '', status: 'error' });
    }
  }
} finally {
  await rm(tmpDir, { recursive: true, force: true });
}
const seconds = (Date.now() - startedAt.getTime()) / 1000;
process.stdout.write(`\ncallsync bench (${values.quick ? 'quick' : 'full'}, ${seconds.toFixed(0)} s)\n${printTable(rows)}\n`);
const resultsFile = join(REPO_ROOT, 'bench-results.json');
await writeResults(resultsFile, { mode: values.quick ? 'quick' : 'full', startedAt: startedAt.toISOString(), seconds, rows });
await writePerformanceDoc(resultsFile, join(REPO_ROOT, 'docs/performance.md'));
process.stdout.write(`wrote ${resultsFile} and docs/performance.md\n`);
