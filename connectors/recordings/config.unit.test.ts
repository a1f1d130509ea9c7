import { describe, expect, it } from 'vitest';
import { ConfigError, formatConfigError } from '../../src/config/errors.js';
import { resolveConfig } from '../../src/config/resolve.js';
import { sinkConfigSchema } from '../registry.js';

const base = {
  upstream: { baseUrl: 'https://calls.example.com' },
  businesses: [{ name: 'acme', apiKey: 'ctk_live_docs_example_key', streams: ['calls'] }],
  sink: { type: 'sqlite', path: './data/callsync.db' },
};

function resolve(recordings: unknown, env: NodeJS.ProcessEnv = {}) {
  return resolveConfig({ ...base, recordings }, { sinkSchema: sinkConfigSchema, env, readFile: () => '', file: 'config/test.yaml' });
}

function problems(recordings: unknown): string {
  try {
    resolve(recordings);
  } catch (error) {
    if (error instanceof ConfigError) return formatConfigError(error);
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('recordings: section', () => {
  it('is optional, and fills the documented defaults when given', () => {
    expect(resolveConfig(base, { sinkSchema: sinkConfigSchema, env: {}, readFile: () => '', file: 'x.yaml' }).config.recordings).toBeUndefined();
    expect(resolve({ archive: { type: 'folder', path: './data/recordings' } }).config.recordings).toEqual({
      archive: { type: 'folder', path: './data/recordings' },
      maxBytes: 512 * 1024 * 1024,
      allowHosts: [],
      sendApiKey: false,
      deleteWithRecord: false,
      budget: { requestsPerMinute: 60, countAgainstApi: true },
      concurrency: 2,
      timeoutMs: 600_000,
      retry: { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 },
    });
  });

  it('reads hosts and the public base URL in one form', () => {
    const { config } = resolve({
      archive: { type: 'folder', path: 'r' },
      allowHosts: ['CDN.Example.com', '127.0.0.1:9000'],
      publicBaseUrl: 'https://cdn.example.com/rec/',
    });
    expect(config.recordings?.allowHosts).toEqual(['cdn.example.com', '127.0.0.1:9000']);
    expect(config.recordings?.publicBaseUrl).toBe('https://cdn.example.com/rec');
  });

  it('takes deleteWithRecord: true', () => {
    expect(resolve({ archive: { type: 'folder', path: 'r' }, deleteWithRecord: true }).config.recordings?.deleteWithRecord).toBe(true);
  });

  it.each([
    ['an archive of no known type', { archive: { type: 'ftp', path: 'x' } }, 'recordings.archive.type'],
    ['a host given as a URL', { archive: { type: 'folder', path: 'x' }, allowHosts: ['https://cdn.example.com/'] }, 'recordings.allowHosts[0]'],
    ['a size limit of zero', { archive: { type: 'folder', path: 'x' }, maxBytes: 0 }, 'recordings.maxBytes'],
    ['an unknown key', { archive: { type: 'folder', path: 'x' }, deleteWithRecords: true }, 'recordings'],
    ['deleteWithRecord given as a word', { archive: { type: 'folder', path: 'x' }, deleteWithRecord: 'yes' }, 'recordings.deleteWithRecord'],
    ['a budget of no requests', { archive: { type: 'folder', path: 'x' }, budget: { requestsPerMinute: 0 } }, 'recordings.budget.requestsPerMinute'],
  ])('refuses %s, naming the file and the field', (_name, recordings, field) => {
    const message = problems(recordings);
    expect(message).toContain('config/test.yaml');
    expect(message).toContain(field);
  });

  it('keeps the archive bucket secret out of every message', () => {
    const { secrets } = resolve(
      { archive: { type: 's3', bucket: 'recordings', accessKeyId: 'AKIAEXAMPLE', accessKeySecret: '${S3_SECRET}' } },
      { S3_SECRET: 'wJalrXUtnFEMI-secret-value' },
    );
    expect(secrets).toContain('wJalrXUtnFEMI-secret-value');
  });
});
