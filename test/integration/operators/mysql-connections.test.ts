import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { mysqlUrl } from '../services.js';
import { runCli } from '../support/cli-process.js';

const API_KEY = 'ctk_live_5f1d0c8e2b7a4d3c9e6f1a0b8c7d6e5f4a3b2c1d';
const PASSWORD = 'pw-do-not-show-4b2e';

/** `mysqlUrl` (the worker's database on the test server) with another user, password or database. */
function urlWith(change: { user?: string; password?: string; database?: string; port?: number }): string {
  const url = new URL(mysqlUrl);
  if (change.user !== undefined) url.username = change.user;
  if (change.password !== undefined) url.password = change.password;
  if (change.database !== undefined) url.pathname = `/${change.database}`;
  if (change.port !== undefined) url.port = String(change.port);
  return url.toString();
}

describe('mysql sink: check-config --check-connections and a backfill name the unreachable server, the credentials, the database', () => {
  let directory: string;
  let deadPort: number;
  const write = (name: string, url: string): string => {
    const path = join(directory, `${name}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        upstream: { baseUrl: `http://127.0.0.1:${deadPort}`, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } },
        businesses: [{ name: 'biz-1', apiKey: API_KEY, streams: ['calls'] }],
        sink: { type: 'mysql', url },
        log: { level: 'warn' },
      }),
    );
    return path;
  };
  const shown = (url: string): string => {
    const parsed = new URL(url);
    return `mysql://${parsed.host}${parsed.pathname}`;
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'callsync-mysql-connections-'));
    deadPort = await freePort();
  });

  it('a server refusing connections: the sink line fails, naming sink.url without the password and the fix', async () => {
    const url = urlWith({ password: PASSWORD, port: deadPort });
    const result = await runCli(['check-config', '--config', write('refused', url), '--check-connections']);
    expect(result.stdout).toContain('  sink: FAILED\n');
    expect(result.stderr).toContain(`error: cannot reach MySQL at ${shown(url)} (sink.url): connection refused\nfix: start MySQL there, or correct sink.url\n`);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    expect(result.code).toBe(3);
  });

  it('wrong credentials: the user or password was rejected, fix them in sink.url', async () => {
    const url = urlWith({ user: 'callsync_nobody', password: PASSWORD });
    const result = await runCli(['check-config', '--config', write('credentials', url), '--check-connections']);
    expect(result.stdout).toContain('  sink: FAILED\n');
    expect(result.stderr).toContain(`error: MySQL at ${shown(url)} (sink.url): the user or password was rejected\nfix: correct the credentials in sink.url\n`);
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    expect(result.code).toBe(3);
  });

  it('a database that does not exist: names it and how to create it; a backfill says the same, exit 3', async () => {
    const url = urlWith({ database: 'callsync_no_such_db' });
    const lines =
      `error: MySQL at ${shown(url)} (sink.url): database "callsync_no_such_db" does not exist\n` +
      'fix: create it (create database `callsync_no_such_db` character set utf8mb4) or correct sink.url\n';
    const check = await runCli(['check-config', '--config', write('missing', url), '--check-connections']);
    expect(check.stderr).toContain(lines);
    expect(check.code).toBe(3);
    const backfill = await runCli(['backfill', '--config', write('missing-backfill', url), '--no-progress']);
    expect(backfill.stderr).toBe(lines);
    expect(backfill.code).toBe(3);
  });

  it('the reachable server: the sink line says reachable', async () => {
    const result = await runCli(['check-config', '--config', write('reachable', mysqlUrl), '--check-connections']);
    expect(result.stdout).toContain('  sink: reachable\n');
  });
});
