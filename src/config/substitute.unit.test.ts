import { describe, expect, it } from 'vitest';
import { ConfigError, formatConfigError } from './errors.js';
import { resolveConfig } from './resolve.js';
import { substitute } from './substitute.js';
import { minimalConfig, testSinkSchema } from '../../test/support/config-fixtures.js';

const files: Record<string, string> = { '/run/secrets/acme_key': 'file-key-acme\n', '/run/secrets/pg': '  s3cr3t-pg  ' };
const readFile = (path: string): string => {
  const content = files[path];
  if (content === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  return content;
};

const run = (document: unknown, env: NodeJS.ProcessEnv) => substitute(document, { env, readFile });

describe('substitute', () => {
  it.each<[string, NodeJS.ProcessEnv, string]>([
    ['${A}', { A: 'alpha' }, 'alpha'],
    ['x-${A}-${B}', { A: '1', B: '2' }, 'x-1-2'],
    ['${A:-fallback}', {}, 'fallback'],
    ['${A:-fallback}', { A: '' }, 'fallback'],
    ['${A:-}', {}, ''],
    ['${A:-fallback}', { A: 'set' }, 'set'],
    ['${A}', { A: '' }, ''],
    ['${A}', { A_FILE: '/run/secrets/acme_key' }, 'file-key-acme'],
    ['${A}', { A: 'env wins', A_FILE: '/run/secrets/acme_key' }, 'env wins'],
    ['${file:/run/secrets/pg}', {}, 's3cr3t-pg'],
    ['$${A}', { A: 'alpha' }, '${A}'],
    ['cost $5', {}, 'cost $5'],
  ])('%s with %j → %s', (text, env, expected) => {
    const result = run({ value: text }, env);
    expect(result.problems).toEqual([]);
    expect(result.value).toEqual({ value: expected });
  });

  it('collects every problem with the config path and the variable or file, not only the first', () => {
    const result = run(
      {
        businesses: [
          { name: 'a', apiKey: '${A_KEY}' },
          { name: 'b', apiKey: '${B_KEY}', v2Token: '${file:/run/secrets/missing}' },
        ],
        server: { token: '${bad name}', host: 'x${' },
      },
      {},
    );
    expect(result.problems).toEqual([
      { path: 'businesses[0].apiKey', message: 'environment variable A_KEY is not set (nor A_KEY_FILE)' },
      { path: 'businesses[1].apiKey', message: 'environment variable B_KEY is not set (nor B_KEY_FILE)' },
      { path: 'businesses[1].v2Token', message: 'cannot read file "/run/secrets/missing" (ENOENT)' },
      { path: 'server.token', message: 'invalid reference "${bad name}" (expected ${NAME}, ${NAME:-default} or ${file:/path})' },
      { path: 'server.host', message: 'unclosed "${" (write "$${" for a literal "${")' },
    ]);
  });

  it('names NAME_FILE when the secret file it points to is unreadable', () => {
    expect(run({ apiKey: '${K}' }, { K_FILE: '/nope' }).problems).toEqual([{ path: 'apiKey', message: 'cannot read K_FILE "/nope" (ENOENT)' }]);
  });

  it('does not substitute keys, and leaves numbers and booleans alone', () => {
    expect(run({ '${A}': 1, b: [true, null, '${A}'] }, { A: 'x' }).value).toEqual({ '${A}': 1, b: [true, null, 'x'] });
  });

  it("lists the values of extra request headers (a receiver's own credential) as secrets", () => {
    const result = run(
      { sink: { type: 'webhook', headers: { 'X-Api-Key': '${RECEIVER_KEY}', Authorization: 'Basic dXNlcjpwYXNz' } } },
      { RECEIVER_KEY: 'rk_live_123456' },
    );
    expect([...result.secrets].sort()).toEqual(['Basic dXNlcjpwYXNz', 'rk_live_123456']);
  });

  it('lists secret values: secret fields (substituted or literal, short ones too) and URL passwords, not other values', () => {
    const result = run(
      {
        businesses: [{ name: '${NAME}', apiKey: 'key-${KEY}', v2Token: 'literal-token', session: { email: 'a@b.c', password: '${PW}' } }],
        server: { token: '${STATUS}' },
        redis: { url: 'redis://:redis%40pw@cache:6379' },
        sink: { type: 'webhook', url: '${HOOK}', secret: '${HOOK_SECRET}', baseUrl: 'https://api.hubapi.com' },
        tiny: { password: 'abc' },
      },
      { NAME: 'acme-name', KEY: 'k3y-value', PW: 'pass-word', STATUS: 'status-token', HOOK: 'https://u:hook-pass@hooks.example/x', HOOK_SECRET: 'hmac-secret' },
    );
    expect([...result.secrets].sort()).toEqual(
      [
        'k3y-value',
        'key-k3y-value',
        'literal-token',
        'pass-word',
        'status-token',
        'redis@pw',
        'redis://:redis%40pw@cache:6379',
        'hook-pass',
        'https://u:hook-pass@hooks.example/x',
        'hmac-secret',
        'abc',
      ].sort(),
    );
  });
});

describe('resolveConfig with substitution', () => {
  const env = { ACME_KEY: 'super-secret-key-1', ACME_V2: 'super-secret-v2' };
  const document = { ...minimalConfig(), businesses: [{ name: 'acme', apiKey: '${ACME_KEY}', v2Token: '${ACME_V2}' }] };

  it('validates substituted values and returns the secrets', () => {
    const { config, secrets } = resolveConfig(document, { sinkSchema: testSinkSchema, env, readFile, file: 'c.yaml' });
    expect(config.businesses[0]?.apiKey).toBe('super-secret-key-1');
    expect(secrets).toEqual(['super-secret-key-1', 'super-secret-v2']);
  });

  it('reports substitution and schema problems together, never echoing a secret', () => {
    const bad = {
      ...document,
      upstream: { baseUrl: '${BASE}' },
      businesses: [{ name: 'acme', apiKey: '${ACME_KEY}', v2Token: '${MISSING}', streams: ['${ACME_KEY}'] }],
    };
    let error: unknown;
    try {
      resolveConfig(bad, { sinkSchema: testSinkSchema, env: { ...env, BASE: 'not a url' }, readFile, file: 'c.yaml' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const text = formatConfigError(error as ConfigError);
    expect(text.split('\n')).toEqual([
      'c.yaml: businesses[0].v2Token: environment variable MISSING is not set (nor MISSING_FILE)',
      'c.yaml: upstream.baseUrl: expected an http(s) URL, got a string that is not one',
      'c.yaml: businesses[0].streams[0]: unknown stream "[redacted]" (expected one of calls, voicemails, numbers, v2_calls)',
    ]);
    expect(text).not.toContain('super-secret');
  });

  it('redacts a secret that a custom message would quote', () => {
    const bad = { ...document, businesses: [{ name: 'acme', apiKey: '${ACME_KEY}', v2Token: '${ACME_V2}', v2Timezone: '${ACME_KEY}' }] };
    expect(() => resolveConfig(bad, { sinkSchema: testSinkSchema, env, readFile, file: 'c.yaml' })).toThrow(
      'c.yaml: businesses[0].v2Timezone: unknown IANA time zone "[redacted]"',
    );
  });
});
