import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStatusStore } from '../../../src/engine/state/index.js';
import { runCli } from '../support/cli-process.js';
import { FLEET_STREAMS, fleetName, fleetStreams, seedFleet } from '../support/status-fleet.js';
import { redisUrl, uniqueName } from '../services.js';
import { deleteKeys } from '../worker/harness.js';

const BUSINESSES = 10_000;

describe('callsync status at 10,000 businesses', () => {
  const prefix = uniqueName('status10k');
  const redis = new Redis(redisUrl);
  const directory = mkdtempSync(join(tmpdir(), 'callsync-status10k-'));
  const configPath = join(directory, 'callsync.json');
  const streams = fleetStreams(BUSINESSES);

  beforeAll(async () => {
    const businesses = Array.from({ length: BUSINESSES }, (_, i) => ({
      name: fleetName(i),
      apiKey: `key-${i}`,
      v2Token: `token-${i}`,
      streams: [...FLEET_STREAMS],
    }));
    const config = {
      upstream: { baseUrl: 'http://127.0.0.1:9/api/v1', v2BaseUrl: 'http://127.0.0.1:9/api/v2' },
      businesses,
      sink: { type: 'sqlite', path: join(directory, 'callsync.db') },
      redis: { url: redisUrl, prefix },
    };
    writeFileSync(configPath, JSON.stringify(config));
    await seedFleet(createRedisStatusStore({ redis, prefix }), streams, Date.now());
  }, 120_000);

  afterAll(async () => {
    await deleteKeys(prefix);
    await redis.quit();
    rmSync(directory, { recursive: true, force: true });
  });

  it('prints one screen: the counts, the stopped businesses, the worst streams first, a fix per kind', async () => {
    const result = await runCli(['status', '--config', configPath]);
    expect([result.code, result.stderr]).toEqual([0, '']);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(50);
    expect(Math.max(...lines.map((line) => Array.from(line).length))).toBeLessThanOrEqual(120);
    const stopped = streams.filter((s) => s.state === 'auth_failed').map((s) => s.business);
    expect(lines[0]).toMatch(new RegExp(`^10,000 businesses \\(${stopped.length} stopped\\), 30,000 streams, as of `));
    const problems = streams.filter(
      (s) => ['failed', 'auth_failed', 'drift', 'gap_warning'].includes(s.state) || (s.lagSeconds !== null && s.lagSeconds >= 300),
    );
    expect(lines[1]).toMatch(new RegExp(`^needs a person ${problems.length}: auth failed ${stopped.length} · failed `));
    // Never-synced first (the stopped ones, by name), then the largest lag.
    const header = lines.findIndex((line) => line.startsWith('BUSINESS '));
    expect(lines.slice(header + 1, header + 1 + stopped.length).map((line) => line.split(/\s+/)[0])).toEqual([...stopped].sort());
    expect(lines.slice(header + 1, header + 21)).toHaveLength(20);
    expect(lines).toContain(`… and ${problems.length - 20} more (--limit N shows more; --all lists every stream)`);
    expect(lines.filter((line) => line.startsWith('  fix: ')).length).toBeGreaterThanOrEqual(5);
  });
});
