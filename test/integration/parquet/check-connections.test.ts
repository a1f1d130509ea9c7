import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/free-port.js';
import { startS3Server, type TestS3Server } from '../../support/s3-server.js';
import { runCli } from '../support/cli-process.js';

const SECRET = 'parquet-check-secret-91c3e0';

describe('parquet sink: check-config --check-connections names the storage key and the fix', () => {
  let directory: string;
  let deadPort: number;
  let server: TestS3Server;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'callsync-parquet-check-'));
    deadPort = await freePort();
    server = await startS3Server();
    await server.createBucket('calls-lake');
  });

  afterAll(async () => {
    await server.close();
  });

  const check = async (name: string, storage: Record<string, unknown>) => {
    const path = join(directory, `${name}.json`);
    writeFileSync(
      path,
      JSON.stringify({
        upstream: { baseUrl: `http://127.0.0.1:${deadPort}`, retry: { maxAttempts: 1 } },
        businesses: [{ name: 'biz-1', apiKey: 'ctk_live_0123456789abcdef', streams: ['calls'] }],
        sink: { type: 'parquet', storage, state: { type: 'sqlite', path: join(directory, `${name}-state.db`) } },
        log: { level: 'warn' },
      }),
    );
    const result = await runCli(['check-config', '--config', path, '--check-connections']);
    expect(result.stderr + result.stdout).not.toContain(SECRET);
    return result;
  };

  const s3 = (overrides: Record<string, unknown>) => ({
    type: 's3',
    bucket: 'calls-lake',
    endpoint: server.endpoint,
    forcePathStyle: true,
    accessKeyId: 'S3RVER',
    accessKeySecret: SECRET,
    ...overrides,
  });

  it('a reachable bucket and a writable folder are reachable', async () => {
    expect((await check('s3-ok', s3({}))).stdout).toContain('  sink: reachable\n');
    expect((await check('folder-ok', { type: 'folder', path: join(directory, 'lake') })).stdout).toContain('  sink: reachable\n');
  });

  it('an endpoint nothing listens on', async () => {
    const result = await check('s3-unreachable', s3({ endpoint: `http://127.0.0.1:${deadPort}` }));
    expect(result.stdout).toContain('  sink: FAILED\n');
    expect(result.stderr).toContain(
      `error: cannot reach the S3 service at http://127.0.0.1:${deadPort}/calls-lake/ (sink.storage.endpoint): connection refused\n` +
        'fix: start the S3 service there, or correct sink.storage.endpoint\n',
    );
    expect(result.code).toBe(3);
  });

  it('a key id the server does not know', async () => {
    const result = await check('s3-denied', s3({ accessKeyId: 'NOT-A-KEY' }));
    expect(result.stdout).toContain('  sink: FAILED\n');
    expect(result.stderr).toContain(
      `error: the S3 service at ${server.endpoint}/calls-lake/ (sink.storage.endpoint): the credentials were refused\n` +
        'fix: correct sink.storage.accessKeyId and sink.storage.accessKeySecret (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); the key needs s3:ListBucket, GetObject, PutObject and DeleteObject on the bucket\n',
    );
  });

  it('a folder that cannot be written', async () => {
    const blocker = join(directory, 'a-file');
    writeFileSync(blocker, 'not a folder');
    const result = await check('folder-blocked', { type: 'folder', path: join(blocker, 'lake') });
    expect(result.stdout).toContain('  sink: FAILED\n');
    expect(result.stderr).toContain(
      `error: sink.storage.path ${join(blocker, 'lake')}: a parent of this path is a file, not a directory\nfix: set sink.storage.path to a path inside a directory\n`,
    );
  });

  it('a bucket that does not exist', async () => {
    const result = await check('s3-no-bucket', s3({ bucket: 'no-such-lake', prefix: 'mirror' }));
    expect(result.stdout).toContain('  sink: FAILED\n');
    expect(result.stderr).toContain(
      `error: the S3 service at ${server.endpoint}/no-such-lake/mirror/ (sink.storage.endpoint): the bucket does not exist\n` +
        'fix: create the bucket, or correct sink.storage.bucket\n',
    );
  });
});
