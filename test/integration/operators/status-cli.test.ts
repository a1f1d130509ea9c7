import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStatusStore, type StatusSnapshot } from '../../../src/state/index.js';
import { startSimulator, type Simulator } from '../../../src/simulator/index.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { redisUrl, uniqueName } from '../services.js';

describe('callsync status', () => {
  let simulator: Simulator;
  let configPath: string;
  const prefix = uniqueName('status');
  const redis = new Redis(redisUrl);

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 2, calls: 300, voicemails: 10, numbers: 2, seed: 17, rateLimit: false });
    const directory = mkdtempSync(join(tmpdir(), 'callsync-status-'));
    const document = { ...configDocument(simulator, join(directory, 's.db'), { rateLimit: false }), redis: { url: redisUrl, prefix } };
    configPath = join(directory, 'callsync.json');
    writeFileSync(configPath, JSON.stringify(document));
    expect((await runCli(['backfill', '--config', configPath, '--no-progress'])).code).toBe(0);
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await simulator.close();
  });

  it('shows every configured stream from the sink when no worker has reported, with the order its walk detected', async () => {
    const result = await runCli(['status', '--config', configPath, '--json']);
    const snapshot = JSON.parse(result.stdout) as StatusSnapshot;
    const calls = snapshot.businesses.find((b) => b.name === 'biz-1')?.streams.find((s) => s.stream === 'calls');
    expect(snapshot.businesses.map((b) => b.streams.length)).toEqual([3, 3]);
    expect(calls).toMatchObject({ state: 'idle', recordsSynced: 300, walk: { order: 'oldest_first', walkInProgress: false } });
    const table = await runCli(['status', '--config', configPath]);
    expect(table.stdout.split('\n').find((text) => text.includes('biz-1') && text.includes('calls'))).toContain('oldest first');
  });

  it("prefers what workers reported in Redis, including a stopped business, as a table", async () => {
    const store = createRedisStatusStore({ redis, prefix });
    await store.update('biz-2', 'calls', { state: 'auth_failed', lastError: 'GET /calls: 401 Invalid API key' });
    await store.markBusinessFailed('biz-2', 'auth: 401 Invalid API key');
    const result = await runCli(['status', '--config', configPath]);
    expect(result.code).toBe(0);
    const line = result.stdout.split('\n').find((text) => text.includes('biz-2') && text.includes('calls'));
    expect(line).toMatch(/auth failed|auth_failed/);
    expect(result.stdout).toMatch(/STOPPED: auth: 401 Invalid API key/);
  });
});
