import { spawn } from 'node:child_process';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSink, type SinkConfig } from '../../../connectors/registry.js';
import { customStream, grownStream, workerRecord } from '../../support/sql-concurrent-prepare.js';
import { freshSqlConfig, querySql } from '../../support/sql-store-fixtures.js';
import { bundleProgram, type Bundle } from '../support/cli-build.js';

const WORKERS = 4;
const logger = pino({ level: 'silent' });
const cleanups: (() => Promise<void>)[] = [];
// Compiled once: under tsx each of the eight children spent about 3 s of CPU compiling before it started.
let program: Bundle;

beforeAll(async () => {
  program = await bundleProgram('test/support/sql-concurrent-prepare.child.ts');
});

afterAll(() => program.remove());

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function runChild(config: SinkConfig, startAt: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [program.main, JSON.stringify(config), String(startAt)], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

async function expectMigratedOnce(config: SinkConfig): Promise<void> {
  const migrations = await querySql(config, (t) => [`select name from ${t('kysely_migration')} order by name`]);
  expect(migrations.map((row) => row.name)).toEqual([
    '001_sync_state_and_dead_letters',
    '002_built_in_stream_tables',
    '003_deleted_at',
    '004_call_details',
    '005_report_views',
    '006_deleted_at_index',
  ]);
}

describe.each(['sqlite', 'postgres', 'mysql'] as const)('concurrent prepare (%s)', (dialect) => {
  it(`${String(WORKERS)} processes starting at once on fresh storage all start and migrate once`, async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    // Module loading takes a moment; every child then waits for the same instant before preparing.
    const startAt = Date.now() + 3000;
    const results = await Promise.all(Array.from({ length: WORKERS }, () => runChild(config, startAt)));
    expect(results).toEqual(Array.from({ length: WORKERS }, () => ({ code: 0, stderr: '' })));
    await expectMigratedOnce(config);
    const rows = await querySql(config, (t) => [`select count(*) as n from ${t('sms')}`]);
    expect(Number(rows[0]?.n)).toBe(WORKERS);
  });

  it(`${String(WORKERS)} sinks of one process create, then grow, a custom table at once`, async () => {
    const config = await freshSqlConfig(dialect, cleanups);
    const sinks = await Promise.all(Array.from({ length: WORKERS }, () => createSink(config, { logger })));
    cleanups.push(async () => {
      for (const sink of sinks) await sink.close();
    });
    await Promise.all(sinks.map((sink) => sink.prepare([customStream])));
    await Promise.all(sinks.map((sink) => sink.prepare([grownStream])));
    await expectMigratedOnce(config);
    await Promise.all(
      sinks.map((sink, i) =>
        sink.write(
          { businessId: 'acme', table: grownStream, records: [{ ...workerRecord(i), fields: { ...workerRecord(i).fields, channel: 'sms' } }], deadLetters: [] },
          {},
        ),
      ),
    );
    const rows = await querySql(config, (t) => [`select channel from ${t('sms')}`]);
    expect(rows).toEqual(Array.from({ length: WORKERS }, () => ({ channel: 'sms' })));
  });
});
