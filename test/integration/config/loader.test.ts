import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, formatConfigError, loadConfig } from '../../../src/config/index.js';
import { testSinkSchema } from '../../support/config-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'callsync-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

async function failure(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ConfigError)) throw new Error(`expected a ConfigError, got ${String(error)}`);
  return error;
}

const yamlConfig = `
upstream:
  baseUrl: https://calls.example.com
  v2BaseUrl: https://v2.calls.example.com
businesses:
  - name: acme
    apiKey: \${ACME_API_KEY}
    v2Token: \${ACME_V2_TOKEN}
    v2Timezone: America/New_York
sink: { type: postgres, url: '\${DATABASE_URL}', schema: warehouse }
server: { token: '\${file:${dir}/status-token}' }
`;

describe('loadConfig', () => {
  it('loads YAML with env, NAME_FILE and file secrets, and returns them for redaction', async () => {
    const keyFile = write('acme-key', 'key-from-file\n');
    write('status-token', '  status-secret \n');
    const file = write('acme.yaml', yamlConfig);
    const env = { ACME_API_KEY_FILE: keyFile, ACME_V2_TOKEN: 'v2-secret', DATABASE_URL: 'postgres://app:db-pass@db:5432/x' };
    const loaded = await loadConfig(file, { sinkSchema: testSinkSchema, env });
    expect(loaded.file).toBe(file);
    expect(loaded.config.businesses[0]).toMatchObject({ apiKey: 'key-from-file', v2Token: 'v2-secret', v2Timezone: 'America/New_York' });
    expect(loaded.config.sink).toEqual({ type: 'postgres', url: 'postgres://app:db-pass@db:5432/x', schema: 'warehouse' });
    expect(loaded.config.server.token).toBe('status-secret');
    expect([...loaded.secrets].sort()).toEqual(['db-pass', 'key-from-file', 'postgres://app:db-pass@db:5432/x', 'status-secret', 'v2-secret'].sort());
    expect(Object.isFrozen(loaded.config.sink)).toBe(true);
  });

  it('loads JSON', async () => {
    const file = write(
      'plain.json',
      JSON.stringify({
        upstream: { baseUrl: 'https://calls.example.com' },
        businesses: [{ name: 'acme', apiKey: 'k-123', streams: ['calls'] }],
        sink: { type: 'sqlite', path: 'x.db' },
      }),
    );
    const { config } = await loadConfig(file, { sinkSchema: testSinkSchema, env: {} });
    expect(config.businesses[0]?.streams).toEqual(['calls']);
  });

  it('lists every unresolved variable and unreadable file, naming the file and config path', async () => {
    const file = write('missing.yaml', yamlConfig);
    const error = await failure(loadConfig(file, { sinkSchema: testSinkSchema, env: {} }));
    rmSync(join(dir, 'status-token'), { force: true });
    const again = await failure(loadConfig(file, { sinkSchema: testSinkSchema, env: {} }));
    expect(formatConfigError(error).split('\n')).toEqual([
      `${file}: businesses[0].apiKey: environment variable ACME_API_KEY is not set (nor ACME_API_KEY_FILE)`,
      `${file}: businesses[0].v2Token: environment variable ACME_V2_TOKEN is not set (nor ACME_V2_TOKEN_FILE)`,
      `${file}: sink.url: environment variable DATABASE_URL is not set (nor DATABASE_URL_FILE)`,
    ]);
    expect(again.problems).toContainEqual({ path: 'server.token', message: `cannot read file "${dir}/status-token" (ENOENT)` });
  });

  it('names the file and line of a syntax error', async () => {
    const file = write('broken.yaml', 'upstream:\n  baseUrl: https://x\n businesses: [\n');
    const error = await failure(loadConfig(file, { sinkSchema: testSinkSchema, env: {} }));
    expect(formatConfigError(error)).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:\\d+: invalid YAML: `));
  });

  it('names a file that cannot be read', async () => {
    const file = join(dir, 'absent.yaml');
    const error = await failure(loadConfig(file, { sinkSchema: testSinkSchema, env: {} }));
    expect(formatConfigError(error)).toBe(`${file}: cannot read the config file (ENOENT)`);
  });
});
