import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/config/resolve.js';
import { sinkConfigSchema } from '../registry.js';
import { parquetConfigSchema } from './config.js';

const folder = { type: 'parquet', storage: { type: 'folder', path: './data/lake' } };
const s3 = { type: 's3', bucket: 'calls-lake', endpoint: 'http://127.0.0.1:9000' };

describe('parquetConfigSchema', () => {
  it('fills the documented defaults', () => {
    expect(parquetConfigSchema.parse(folder)).toEqual({
      ...folder,
      state: { type: 'sqlite', path: './data/parquet-state.db' },
      compression: 'zstd',
      maxRowsPerFile: 10_000,
    });
    expect(parquetConfigSchema.parse({ ...folder, storage: s3 }).storage).toEqual({
      ...s3,
      prefix: '',
      region: 'us-east-1',
      forcePathStyle: false,
      partSizeBytes: 8 * 1024 * 1024,
    });
  });

  it('ends a prefix with one "/"', () => {
    expect(parquetConfigSchema.parse({ ...folder, storage: { ...s3, prefix: 'callsync' } }).storage).toMatchObject({ prefix: 'callsync/' });
    expect(parquetConfigSchema.parse({ ...folder, storage: { ...s3, prefix: 'a/b/' } }).storage).toMatchObject({ prefix: 'a/b/' });
  });

  it.each([
    ['a key id without its secret', { ...s3, accessKeyId: 'AKIAEXAMPLE' }, 'storage.accessKeySecret'],
    ['a bucket name S3 refuses', { ...s3, bucket: 'Calls_Lake' }, 'storage.bucket'],
    ['a prefix starting with "/"', { ...s3, prefix: '/callsync' }, 'storage.prefix'],
    ["a part under S3's 5 MiB minimum", { ...s3, partSizeBytes: 1024 }, 'storage.partSizeBytes'],
    ['an unknown storage type', { type: 'gcs', bucket: 'calls-lake' }, 'storage.type'],
  ])('refuses %s, naming the key', (_name, storage, key) => {
    const result = parquetConfigSchema.safeParse({ ...folder, storage });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(key);
  });

  it('keeps the secret and the session token among the values every output redacts', () => {
    const resolved = resolveConfig(
      {
        upstream: { baseUrl: 'https://calls.example.com' },
        businesses: [{ name: 'acme', apiKey: 'ctk_live_docs_example_key', streams: ['calls'] }],
        sink: { ...folder, storage: { ...s3, accessKeyId: 'AKIAEXAMPLE', accessKeySecret: '${S3_SECRET}', sessionToken: 'session-token-value' } },
      },
      { sinkSchema: sinkConfigSchema, env: { S3_SECRET: 'wJalrXUtnFEMI-secret-value' }, readFile: () => '', file: 'test.yaml' },
    );
    expect(resolved.secrets).toEqual(expect.arrayContaining(['wJalrXUtnFEMI-secret-value', 'session-token-value']));
    expect(resolved.secrets).not.toContain('AKIAEXAMPLE');
  });
});
