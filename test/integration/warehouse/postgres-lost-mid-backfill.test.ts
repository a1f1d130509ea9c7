import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { dropSchema } from '../../support/raw-postgres-baseline.js';
import { postgresUrl, uniqueName } from '../services.js';
import { configDocument } from '../support/backfill-harness.js';
import { spawnCli } from '../support/cli-process.js';
import { startPostgresCutProxy } from './postgres-cut-proxy.js';

const schema = uniqueName('pg_lost');
let simulator: Simulator;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 1, calls: 30_000, voicemails: 20, numbers: 3, seed: 30 });
  directory = mkdtempSync(join(tmpdir(), 'callsync-pg-lost-'));
});

afterAll(async () => {
  await simulator.close();
  await dropSchema(postgresUrl, schema);
  rmSync(directory, { recursive: true, force: true });
});

async function countRows(table: string): Promise<number> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const exists = await client.query<{ n: string | null }>(`select to_regclass($1) as n`, [`"${schema}"."${table}"`]);
    if (exists.rows[0]?.n === null) return 0;
    return Number((await client.query<{ n: string }>(`select count(*) as n from "${schema}"."${table}"`)).rows[0]?.n);
  } finally {
    await client.end();
  }
}

/** The summary's rows by stream: its records and written columns. */
function summaryCounts(stdout: string): Map<string, { status: string; records: number; written: number }> {
  const rows = new Map<string, { status: string; records: number; written: number }>();
  for (const line of stdout.split('\n').slice(2)) {
    const match = /^(\S+)\s+(\S+)\s+(failed \(\w+\)|ok|stopped)\s+(\d+)\s+(\d+)\s/.exec(line);
    if (match !== null) rows.set(match[2] ?? '', { status: match[3] ?? '', records: Number(match[4]), written: Number(match[5]) });
  }
  return rows;
}

describe('PostgreSQL lost in the middle of a backfill', () => {
  it('exits 3 with a fix: line naming sink.url, and the summary counts what the table holds', async () => {
    const target = new URL(postgresUrl);
    const proxy = await startPostgresCutProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(postgresUrl);
    url.port = String(proxy.port);
    const configPath = join(directory, 'callsync.json');
    const sink = { type: 'postgres', url: url.toString(), schema };
    writeFileSync(configPath, JSON.stringify(configDocument(simulator, '', { sink, pageSize: 100, rateLimit: { requests: 40, perMs: 1000 } })));
    const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
    try {
      for (;;) {
        if (cli.child.exitCode !== null) throw new Error(`backfill ended before the cut:\n${cli.stderr()}`);
        if ((await countRows('calls')) >= 1_000) break;
        await new Promise((done) => setTimeout(done, 50));
      }
      await proxy.cut();
      const { code } = await cli.exited;
      const stderr = cli.stderr();
      expect(code, stderr).toBe(3);
      // The worker's database (services.ts), named as sink.url names it, without the user.
      expect(stderr).toMatch(new RegExp(`business biz-1 failed: .*PostgreSQL at postgres://127\\.0\\.0\\.1:\\d+${target.pathname} \\(sink\\.url\\)`));
      expect(stderr).toMatch(/\n\s*fix: .*sink\.url/);
      expect(stderr).not.toContain('internal');
      const calls = summaryCounts(cli.stdout()).get('calls');
      const stored = await countRows('calls');
      expect(stored).toBeGreaterThanOrEqual(1_000);
      expect(calls).toEqual({ status: 'failed (sink)', records: stored, written: stored });
    } finally {
      cli.child.kill('SIGKILL');
      await proxy.cut();
    }
  });
});
