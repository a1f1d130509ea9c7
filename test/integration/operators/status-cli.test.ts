import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStatusStore, type StatusSnapshot } from '../../../src/engine/state/index.js';
import type { StatusDocument } from '../../../src/entry/server/index.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
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
    // Every row is behind --all now; the default lists only what needs a person.
    const table = await runCli(['status', '--config', configPath, '--all']);
    expect(table.stdout.split('\n').find((text) => text.includes('biz-1') && text.includes('calls'))).toContain('oldest first');
    const summary = await runCli(['status', '--config', configPath]);
    expect(summary.stdout.split('\n').slice(0, 3)).toEqual([
      expect.stringMatching(/^2 businesses, 6 streams, as of /),
      'needs a person 0: auth failed 0 · failed 0 · drift 0 · gap warning 0 · waiting long 0',
      'other states: waiting for budget 0 · syncing 0 · idle 6; waiting long = no successful run for 5m or more',
    ]);
    expect(summary.stdout).toContain('Nothing needs a person.');
  });

  it('prefers what workers reported in Redis, including a stopped business, as a table', async () => {
    const store = createRedisStatusStore({ redis, prefix });
    await store.update('biz-2', 'calls', { state: 'auth_failed', lastError: 'GET /calls: 401 Invalid API key' });
    await store.markBusinessFailed('biz-2', 'auth: 401 Invalid API key');
    const result = await runCli(['status', '--config', configPath]);
    expect(result.code).toBe(0);
    const line = result.stdout.split('\n').find((text) => text.startsWith('biz-2 ') && text.includes('calls'));
    expect(line).toMatch(/auth failed|auth_failed/);
    expect(result.stdout).toMatch(/STOPPED: auth: 401 Invalid API key/);
    expect(result.stdout).toContain('needs a person 1: auth failed 1 ·');
    expect(result.stdout).toContain('NEEDS A PERSON: 1 streams, most behind first');
    // Healthy streams are counted, not listed.
    expect(result.stdout.split('\n').filter((text) => text.startsWith('biz-1 '))).toEqual([]);
    const json = JSON.parse((await runCli(['status', '--config', configPath, '--json'])).stdout) as StatusDocument;
    expect(json.summary).toMatchObject({ businesses: 2, streams: 6, needsPerson: 1, stoppedBusinesses: 1 });
    expect(json.nextCursor).toBeNull();
    const bad = await runCli(['status', '--config', configPath, '--limit', '0']);
    expect([bad.code === 0, bad.stderr]).toEqual([
      false,
      expect.stringContaining("option '--limit <n>' argument '0' is invalid. expected a whole number from 1"),
    ]);
  });
});
