import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createRedisRateLimiter } from '../../../src/source/ratelimit/index.js';
import { redisUrl } from '../services.js';
import { runCli } from '../support/cli-process.js';
import { workspace } from '../worker/harness.js';

describe('callsync resume', () => {
  const ws = workspace('resume-block');
  const redis = new Redis(redisUrl);

  afterAll(async () => {
    await ws.cleanup();
    await redis.quit();
  });

  it('lifts a rate-limit block along with the failure mark; other businesses keep theirs', async () => {
    const config = join(ws.dir, 'callsync.json');
    writeFileSync(
      config,
      JSON.stringify({
        upstream: { baseUrl: 'http://127.0.0.1:9' },
        businesses: [
          { name: 'biz-1', apiKey: 'key-biz-1-long', streams: ['calls'] },
          { name: 'biz-2', apiKey: 'key-biz-2-long', streams: ['calls'] },
        ],
        sink: { type: 'sqlite', path: ws.dbPath },
        redis: { url: redisUrl, prefix: ws.prefix },
      }),
    );
    const limiter = createRedisRateLimiter({ redis, prefix: ws.prefix });
    const bucket = { limit: 60, windowMs: 60_000 };
    const hourAhead = Date.now() + 3_600_000;
    await limiter.block('biz-1', hourAhead);
    await limiter.block('biz-2', hourAhead);
    expect((await limiter.take('biz-1', bucket)).granted).toBe(false);

    const result = await runCli(['resume', 'biz-1', '--config', config]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('business biz-1 was not stopped\n');
    expect((await limiter.take('biz-1', bucket)).granted).toBe(true);
    expect((await limiter.take('biz-2', bucket)).granted).toBe(false);
  });
});
