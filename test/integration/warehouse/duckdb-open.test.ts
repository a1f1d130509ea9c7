import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdbSinkFactory } from '../../../connectors/duckdb/index.js';
import type { Sink } from '../../../src/sink/sink.js';
import { runCli } from '../support/cli-process.js';
import { freePort } from '../../support/free-port.js';
import { redisUrl, uniqueName } from '../services.js';
import { voicemailRecord, voicemailsTable } from '../sink-conformance/fixtures.js';

const API_KEY = 'ctk_live_5f1d0c8e2b7a4d3c9e6f1a0b8c7d6e5f4a3b2c1d';

describe('DuckDB file: one process at a time, and paths it cannot open, said in two lines', () => {
  let directory: string;
  let deadPort: number;

  const write = (name: string, path: string): string => {
    const file = join(directory, name);
    writeFileSync(
      file,
      JSON.stringify({
        upstream: { baseUrl: `http://127.0.0.1:${deadPort}`, retry: { maxAttempts: 1, baseDelayMs: 5, maxDelayMs: 10 } },
        businesses: [{ name: 'biz-1', apiKey: API_KEY, streams: ['calls'] }],
        sink: { type: 'duckdb', path },
        redis: { url: redisUrl, prefix: uniqueName('duckdb-open') },
        log: { level: 'warn' },
      }),
    );
    return file;
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'callsync-duckdb-open-'));
    deadPort = await freePort();
  });

  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('refuses a second process at once while one holds the file (a second run replica, a backfill), and the holder keeps every row', async () => {
    const path = join(directory, 'held.duckdb');
    const holder: Sink = await duckdbSinkFactory.create({ type: 'duckdb', path }, { logger: pino({ level: 'silent' }) });
    try {
      const table = voicemailsTable;
      const records = ['a', 'b', 'c'].map((id) => voicemailRecord('biz-1', id));
      await holder.write({ businessId: 'biz-1', table, records, deadLetters: [] }, { page: 1 });
      const config = write('held.json', path);
      const lines =
        `error: sink.path ${path}: another process holds this DuckDB file (DuckDB lets one process open a file at a time)\n` +
        'fix: stop the other callsync using it (run only one replica, and no backfill beside a run), or set sink.path to another file\n';

      const checked = await runCli(['check-config', '--config', config, '--check-connections']);
      expect(checked.stdout).toContain('  sink: FAILED\n');
      // The upstream of this config is down too: its own lines follow the sink's.
      expect(checked.stderr.startsWith(lines)).toBe(true);

      const backfill = await runCli(['backfill', '--config', config, '--no-progress']);
      expect(backfill.stderr).toBe(lines);
      expect(backfill.code).toBe(4);

      // A second `run` replica stops at start, before it takes any job.
      const replica = await runCli(['run', '--config', config]);
      expect(replica.stderr).toBe(lines);
      expect(replica.code).toBe(4);

      expect(await holder.records.count('biz-1', table)).toBe(3);
      await holder.write({ businessId: 'biz-1', table, records: [voicemailRecord('biz-1', 'd')], deadLetters: [] }, { page: 2 });
      expect(await holder.records.count('biz-1', table)).toBe(4);
    } finally {
      await holder.close();
    }
    // Closed, the file is free for the next process.
    const after = await runCli(['check-config', '--config', write('after.json', path), '--check-connections']);
    expect(after.stdout).toContain('  sink: reachable\n');
  });

  it('a path nobody may write (read-only sysfs, even for root): names sink.path and the fix', async () => {
    const config = write('readonly.json', '/sys/callsync-test.duckdb');
    const result = await runCli(['check-config', '--config', config, '--check-connections']);
    expect(result.stdout).toContain('  sink: FAILED\n');
    expect(
      result.stderr.startsWith(
        'error: sink.path /sys/callsync-test.duckdb: cannot open or write there (permission denied, a read-only file system, or not a file)\n' +
          'fix: let the user running callsync write there, or set sink.path to another path\n',
      ),
    ).toBe(true);
  });
});
