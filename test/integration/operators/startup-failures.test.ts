import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { countLogLines, runCli } from '../support/cli-process.js';
import { freePort } from '../../support/free-port.js';

const API_KEY = 'ctk_live_5f1d0c8e2b7a4d3c9e6f1a0b8c7d6e5f4a3b2c1d';
const PG_PASSWORD = 'pw-do-not-show-7c1e';

describe('start-up failures: one or two lines naming the key, the target and the fix, a documented exit code', () => {
  let directory: string;
  let deadPort: number;

  const write = (name: string, document: Record<string, unknown>): string => {
    const path = join(directory, name);
    writeFileSync(
      path,
      JSON.stringify({
        upstream: { baseUrl: `http://127.0.0.1:${deadPort}`, retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 } },
        businesses: [{ name: 'biz-1', apiKey: API_KEY, streams: ['calls'] }],
        sink: { type: 'sqlite', path: join(directory, `${name}.db`) },
        log: { level: 'warn' },
        ...document,
      }),
    );
    return path;
  };

  /** Everything the person sees, with the checks every failure shares: no stack, no secret. */
  const expectPlain = (result: { stderr: string; stdout: string }): void => {
    const all = result.stderr + result.stdout;
    expect(all).not.toMatch(/\n\s+at .+:\d+:\d+/);
    expect(all).not.toContain('Unhandled error event');
    expect(all).not.toContain(PG_PASSWORD);
    expect(all).not.toContain(API_KEY.slice(10, 18));
  };

  /** Runs the CLI and checks what a person sees in full: the message, the exit code, and {@link expectPlain}. */
  const expectFailure = async (args: readonly string[], stderr: string, code: number): Promise<void> => {
    const result = await runCli(args);
    expect(result.stderr).toBe(stderr);
    expect(result.code).toBe(code);
    expectPlain(result);
  };

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'callsync-startup-'));
    deadPort = await freePort();
  });

  it('PostgreSQL database missing: names sink.url without the password, says how to create it, exit 3', async () => {
    const config = write('pg-missing.json', { sink: { type: 'postgres', url: `postgres://postgres:${PG_PASSWORD}@127.0.0.1:5432/callsync_no_such_db` } });
    await expectFailure(
      ['backfill', '--config', config, '--no-progress'],
      'error: PostgreSQL at postgres://127.0.0.1:5432/callsync_no_such_db (sink.url): database "callsync_no_such_db" does not exist\n' +
        'fix: create it (createdb callsync_no_such_db) or correct sink.url\n',
      3,
    );
  });

  it('PostgreSQL refusing connections: exit 3', async () => {
    const config = write('pg-refused.json', { sink: { type: 'postgres', url: `postgres://postgres:${PG_PASSWORD}@127.0.0.1:${deadPort}/test` } });
    await expectFailure(
      ['backfill', '--config', config, '--no-progress'],
      `error: cannot reach PostgreSQL at postgres://127.0.0.1:${deadPort}/test (sink.url): connection refused\nfix: start PostgreSQL there, or correct sink.url\n`,
      3,
    );
  });

  it('Redis down for run: names redis.url, no ioredis noise, exit 3', async () => {
    const config = write('redis-down.json', { redis: { url: `redis://127.0.0.1:${deadPort}`, prefix: 'startup-redis-down' } });
    await expectFailure(
      ['run', '--config', config],
      `error: cannot reach Redis at redis://127.0.0.1:${deadPort} (redis.url): connection refused\nfix: start Redis there, or correct redis.url\n`,
      3,
    );
  });

  it('Redis down for run after a warning: the warning line comes first, as logged (run buffers its log lines)', async () => {
    const config = write('redis-down-warned.json', {
      redis: { url: `redis://127.0.0.1:${deadPort}`, prefix: 'startup-redis-down' },
      server: { host: '0.0.0.0' },
    });
    const result = await runCli(['run', '--config', config]);
    const [first = '', ...rest] = result.stderr.split('\n');
    expect(JSON.parse(first)).toMatchObject({ level: 40 });
    expect(rest.join('\n')).toBe(
      `error: cannot reach Redis at redis://127.0.0.1:${deadPort} (redis.url): connection refused\nfix: start Redis there, or correct redis.url\n`,
    );
    expect(result.code).toBe(3);
  });

  it('a SQLite path whose parent is a file: exit 4', async () => {
    const file = join(directory, 'a-file');
    writeFileSync(file, 'not a directory');
    const config = write('sqlite-enotdir.json', { sink: { type: 'sqlite', path: join(file, 'callsync.db') } });
    await expectFailure(
      ['backfill', '--config', config, '--no-progress'],
      `error: sink.path ${join(file, 'callsync.db')}: a parent of this path is a file, not a directory\nfix: set sink.path to a path inside a directory\n`,
      4,
    );
  });

  it('a SQLite path nobody may write (read-only sysfs, even for root): exit 4', async () => {
    const config = write('sqlite-readonly.json', { sink: { type: 'sqlite', path: '/sys/callsync-test.db' } });
    await expectFailure(
      ['backfill', '--config', config, '--no-progress'],
      'error: sink.path /sys/callsync-test.db: cannot write there (permission denied or a read-only file system)\n' +
        'fix: let the user running callsync write there, or set sink.path to another path\n',
      4,
    );
  });

  it('upstream unreachable: the summary, then the business line with the fix naming upstream.baseUrl, exit 3', async () => {
    const config = write('upstream-down.json', {});
    await expectFailure(
      ['backfill', '--config', config, '--no-progress'],
      `business biz-1 failed: transient: GET 127.0.0.1:${deadPort}/api/v1/calls failed: network: ECONNREFUSED\n` +
        '  fix: start the upstream API or correct upstream.baseUrl / upstream.v2BaseUrl, then run again (it resumes)\n',
      3,
    );
  });

  it('webhook receiver unreachable: names sink.url, exit 3', async () => {
    const config = write('receiver-down.json', {
      sink: {
        type: 'webhook',
        url: `http://127.0.0.1:${deadPort}/hook?token=abc`,
        secret: 'whsec-0123456789abcdef',
        state: { type: 'sqlite', path: join(directory, 'hook-state.db') },
        // A refused connection is tried again under sink.retry before the receiver is called down.
        retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
      },
    });
    const result = await runCli(['backfill', '--config', config, '--no-progress']);
    expect(countLogLines(result.stderr, 'webhook receiver not reached; trying again')).toBe(1);
    expect(
      result.stderr
        .split('\n')
        .filter((line) => !line.startsWith('{'))
        .join('\n'),
    ).toBe(
      `error: cannot reach the webhook receiver at http://127.0.0.1:${deadPort}/hook (sink.url): connection refused\nfix: start the webhook receiver there, or correct sink.url\n`,
    );
    expect(result.stderr).not.toContain('token=abc');
    expect(result.code).toBe(3);
    expectPlain(result);
  });

  it('webhook state bound to its receiver: a changed sink.url is refused naming both and the choice (exit 2); adopt moves it', async () => {
    const state = { type: 'sqlite', path: join(directory, 'bound-state.db') };
    const hook = (path: string, extra: Record<string, unknown> = {}) =>
      write(`bound-${path}-${Object.keys(extra).length}.json`, {
        sink: {
          type: 'webhook',
          url: `http://127.0.0.1:${deadPort}/${path}`,
          secret: 'whsec-0123456789abcdef',
          state,
          retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
          ...extra,
        },
      });
    // First use binds the state to /old (the receiver being down is the next, separate problem).
    expect((await runCli(['backfill', '--config', hook('old'), '--no-progress'])).code).toBe(3);
    const moved = await runCli(['backfill', '--config', hook('new'), '--no-progress']);
    expect(moved.stderr).toBe(
      `error: sink.state holds what was delivered to http://127.0.0.1:${deadPort}/old, but sink.url is now http://127.0.0.1:${deadPort}/new: the new receiver would get only records new to the old one\n` +
        'fix: to start fresh, point sink.state at a new database; to adopt the old state (the new receiver already has what the old one got), set sink.onEndpointChange: adopt\n',
    );
    expect(moved.code).toBe(2);
    expectPlain(moved);
    // Adopted once, the state belongs to /new: later runs need no flag, and /old is now the stranger.
    expect((await runCli(['backfill', '--config', hook('new', { onEndpointChange: 'adopt' }), '--no-progress'])).code).toBe(3);
    expect((await runCli(['backfill', '--config', hook('new'), '--no-progress'])).code).toBe(3);
    expect((await runCli(['backfill', '--config', hook('old'), '--no-progress'])).code).toBe(2);
  });

  it('--verbose adds the stack trace', async () => {
    const config = write('verbose.json', { redis: { url: `redis://127.0.0.1:${deadPort}` } });
    const result = await runCli(['run', '--config', config, '--verbose']);
    expect(result.stderr).toMatch(/^error: cannot reach Redis/);
    expect(result.stderr).toMatch(/\n\s+at .+:\d+:\d+/);
    expect(result.code).toBe(3);
  });

  it('--business nosuch names the configured businesses, exit 2', async () => {
    const config = write('nosuch.json', {});
    const result = await runCli(['backfill', '--config', config, '--business', 'nosuch', '--no-progress']);
    expect(result.stderr).toBe(`${config}: nothing to sync for --business nosuch --stream *; configured businesses: biz-1\n`);
    expect(result.code).toBe(2);
  });
});

describe('check-config', () => {
  let directory: string;
  let deadPort: number;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'callsync-check-'));
    deadPort = await freePort();
  });

  const write = (name: string, patch: Record<string, unknown>): string => {
    const path = join(directory, name);
    writeFileSync(
      path,
      JSON.stringify({
        upstream: { baseUrl: `http://127.0.0.1:${deadPort}` },
        businesses: [{ name: 'biz-1', apiKey: API_KEY, streams: ['calls'] }],
        sink: { type: 'sqlite', path: join(directory, `${name}.db`) },
        ...patch,
      }),
    );
    return path;
  };

  it('rejects postgress:// naming sink.url, without echoing the password, exit 2', async () => {
    const config = write('scheme.json', { sink: { type: 'postgres', url: `postgress://postgres:${PG_PASSWORD}@127.0.0.1/test` } });
    const result = await runCli(['check-config', '--config', config]);
    expect(result.stderr).toBe(`${config}: sink.url: expected a postgres:// or postgresql:// URL\n`);
    expect(result.code).toBe(2);
  });

  it.each(['kysely_migration', 'sqlite_stat1', 'sync_state', 'dead_letters', 'kysely_lock'])('rejects the reserved stream name %s', async (name) => {
    const config = write(`reserved-${name}.json`, { streams: [{ name, path: '/things' }] });
    const result = await runCli(['check-config', config]);
    expect(result.stderr).toMatch(new RegExp(`^${config.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: streams\\[0\\]\\.name: is reserved `));
    expect(result.code).toBe(2);
  });

  it('warns about a non-loopback server.host without server.token, and accepts both spellings of the file', async () => {
    const config = write('open-port.json', { server: { host: '0.0.0.0' } });
    for (const args of [
      ['check-config', config],
      ['check-config', '--config', config],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`${config}: valid (sink sqlite)`);
      expect(result.stderr).toBe(
        'warning: server.host 0.0.0.0 is reachable from other machines and server.token is not set: anyone there can read /status and /metrics; set server.token (or server.host: 127.0.0.1)\n',
      );
    }
    const quiet = await runCli(['check-config', '--config', write('token.json', { server: { host: '0.0.0.0', token: 'a-long-status-token' } })]);
    expect(quiet.stderr).toBe('');
  });

  it('--check-connections tries every service and names each failing key, exit 3', async () => {
    // A refused connection is tried again under upstream.retry before upstream is called down.
    const upstream = { baseUrl: `http://127.0.0.1:${deadPort}`, retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 10 } };
    const config = write('connections.json', { redis: { url: `redis://127.0.0.1:${deadPort}` }, upstream });
    const result = await runCli(['check-config', '--config', config, '--check-connections']);
    expect(result.stdout).toContain('  sink: reachable\n');
    expect(result.stdout).toContain('  redis.url: FAILED\n');
    expect(result.stdout).toContain('  upstream.baseUrl: FAILED\n');
    expect(result.stderr.replace(/in \d+ ms/g, 'in N ms')).toBe(
      `error: cannot reach Redis at redis://127.0.0.1:${deadPort} (redis.url): connection refused\nfix: start Redis there, or correct redis.url\n` +
        '  upstream.baseUrl: ECONNREFUSED; trying again in N ms (attempt 1 of 3)\n' +
        '  upstream.baseUrl: ECONNREFUSED; trying again in N ms (attempt 2 of 3)\n' +
        `error: cannot reach the upstream API at http://127.0.0.1:${deadPort} (upstream.baseUrl): connection refused\nfix: start the upstream API there, or correct upstream.baseUrl\n`,
    );
    expect(result.code).toBe(3);
  });
});
