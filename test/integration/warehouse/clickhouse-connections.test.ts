import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { freePort } from '../../support/free-port.js';
import { clickhouseUrl, uniqueName } from '../services.js';

const PASSWORD = 'ch-pw-do-not-show-41d9';
const server = new URL(clickhouseUrl);
let simulator: Simulator;
let directory: string;

function writeConfig(name: string, sink: Record<string, unknown>): string {
  const path = join(directory, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({ ...configDocument(simulator, '', { sink, rateLimit: false }), redis: { url: 'redis://127.0.0.1:6379', prefix: uniqueName('ch') } }),
  );
  return path;
}

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 1, calls: 10, voicemails: 1, numbers: 1, rateLimit: false });
  directory = mkdtempSync(join(tmpdir(), 'callsync-clickhouse-connections-'));
});

afterAll(async () => {
  await simulator.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('clickhouse: check-config --check-connections names sink.url and the fix, never the password', () => {
  it('an unreachable server: connection refused, exit 3', async () => {
    const port = await freePort();
    const config = writeConfig('refused', { type: 'clickhouse', url: `http://default:${PASSWORD}@127.0.0.1:${port}`, database: uniqueName('ch') });
    const result = await runCli(['check-config', '--config', config, '--check-connections']);
    expect(result.stderr).toBe(
      `error: cannot reach ClickHouse at http://127.0.0.1:${port} (sink.url): connection refused\nfix: start ClickHouse there, or correct sink.url\n`,
    );
    expect(result.stdout).toContain('  sink: FAILED\n');
    expect(result.code).toBe(3);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });

  it('a wrong user or password: rejected, exit 3', async () => {
    const config = writeConfig('rejected', { type: 'clickhouse', url: `http://nobody:${PASSWORD}@${server.host}`, database: uniqueName('ch') });
    const result = await runCli(['check-config', '--config', config, '--check-connections']);
    expect(result.stderr).toBe(
      `error: ClickHouse at http://${server.host} (sink.url): the user or password was rejected\n` +
        'fix: correct the user and password in sink.url (given before its host)\n',
    );
    expect(result.code).toBe(3);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });

  it('a reachable server with the right user: reachable, the database created', async () => {
    const database = uniqueName('ch');
    const config = writeConfig('fine', { type: 'clickhouse', url: server.origin, database });
    const result = await runCli(['check-config', '--config', config, '--check-connections']);
    const client = createClient({ url: server.origin });
    try {
      const created = await client.query({ query: `SELECT count() AS n FROM system.databases WHERE name = '${database}'`, format: 'JSONEachRow' });
      expect(await created.json()).toEqual([{ n: '1' }]);
    } finally {
      await client.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await client.close();
    }
    expect(result.stdout).toContain('  sink: reachable\n');
    expect(result.code, result.stderr).toBe(0);
  });

  it('a database in the URL instead of sink.database: check-config names the file and the field', async () => {
    const config = writeConfig('path', { type: 'clickhouse', url: `${server.origin}/analytics` });
    const result = await runCli(['check-config', '--config', config]);
    expect(result.stderr).toContain(config);
    expect(result.stderr).toContain('sink.url');
    expect(result.stderr).toContain('the database is sink.database');
    expect(result.code).not.toBe(0);
  });
});
