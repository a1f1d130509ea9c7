import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { freshMysqlDatabase, type FreshMysqlDatabase } from '../../support/mysql-database.js';
import { configDocument } from '../support/backfill-harness.js';
import { spawnCli } from '../support/cli-process.js';

let simulator: Simulator;
let database: FreshMysqlDatabase;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 1, calls: 20_000, voicemails: 20, numbers: 3, seed: 30, rateLimit: false });
  database = await freshMysqlDatabase('lost');
  directory = mkdtempSync(join(tmpdir(), 'callsync-mysql-lost-'));
});

afterAll(async () => {
  await simulator.close();
  await database.drop();
  rmSync(directory, { recursive: true, force: true });
});

/** A TCP proxy in front of the server that `cut()` turns into a server gone: every connection reset, new ones refused. */
async function startCutProxy(host: string, port: number): Promise<{ port: number; cut: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no proxy port');
  return {
    port: address.port,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.resetAndDestroy();
      await closed;
    },
  };
}

async function countCalls(): Promise<number> {
  const connection = await mysql.createConnection({ uri: database.url });
  try {
    const [rows] = (await connection.query(
      "select count(*) as n from information_schema.tables where table_schema = database() and table_name = 'calls'",
    )) as unknown as [{ n: number }[]];
    if (Number(rows[0]?.n) === 0) return 0;
    const [counted] = (await connection.query('select count(*) as n from calls')) as unknown as [{ n: number }[]];
    return Number(counted[0]?.n);
  } finally {
    await connection.end();
  }
}

describe('MySQL lost in the middle of a backfill', () => {
  it('exits 3 with the operator lines naming sink.url, and a rerun against the server completes', async () => {
    const target = new URL(database.url);
    const proxy = await startCutProxy(target.hostname, Number(target.port || 3306));
    const url = new URL(database.url);
    url.port = String(proxy.port);
    const configPath = join(directory, 'callsync.json');
    const write = (sinkUrl: string) =>
      writeFileSync(configPath, JSON.stringify(configDocument(simulator, '', { sink: { type: 'mysql', url: sinkUrl }, pageSize: 100, rateLimit: false })));
    write(url.toString());
    const cli = spawnCli(['backfill', '--config', configPath, '--no-progress']);
    try {
      for (;;) {
        if (cli.child.exitCode !== null) throw new Error(`backfill ended before the cut:\n${cli.stderr()}`);
        if ((await countCalls()) >= 1_000) break;
        await new Promise((done) => setTimeout(done, 50));
      }
      await proxy.cut();
      const { code } = await cli.exited;
      const stderr = cli.stderr();
      expect(code, stderr).toBe(3);
      expect(stderr).toMatch(new RegExp(`MySQL at mysql://127\\.0\\.0\\.1:${proxy.port}${target.pathname} \\(sink\\.url\\)`));
      expect(stderr).toMatch(/\n\s*fix: .*sink\.url/);
      expect(stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    } finally {
      cli.child.kill('SIGKILL');
    }
    // The server itself again: the rerun resumes and ends with every call, once.
    write(database.url);
    const rerun = spawnCli(['backfill', '--config', configPath, '--no-progress']);
    expect((await rerun.exited).code, rerun.stderr()).toBe(0);
    expect(await countCalls()).toBe(simulator.truth('biz-1').calls.length);
  });
});
