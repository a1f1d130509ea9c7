import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sinkConfigSchema } from '../../../connectors/registry.js';
import { ConfigError, formatConfigError, loadConfig } from '../../../src/config/index.js';
import { runCli } from '../support/cli-process.js';

// Every file in config/ is checked with the loader and sink schemas `callsync` itself uses, under
// the environment its header comment documents ("Needs A, B and C"): a user who sets exactly those
// variables gets a config that loads.
const CONFIG_DIR = join(import.meta.dirname, '../../../config');
const files = readdirSync(CONFIG_DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort();
const text = (name: string): string => readFileSync(join(CONFIG_DIR, name), 'utf8');
const isCompose = (name: string): boolean => typeof (parse(text(name)) as Record<string, unknown>).services === 'object';
const callsyncConfigs = files.filter((name) => !isCompose(name));

/** The variables named in the header comment's "Needs …" sentence (asides in parentheses left out). */
function documented(name: string): string[] {
  const header = text(name)
    .split('\n')
    .filter((line) => line.startsWith('#'))
    .map((line) => line.replace(/^#\s?/, ''))
    .join(' ');
  const needs = /\bNeeds\b([^.]*)\./.exec(header.replace(/\([^)]*\)/g, ''))?.[1] ?? '';
  return [...needs.matchAll(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g)].map((m) => m[0]).sort();
}

/** Minimum lengths the header states, as in "WEBHOOK_SECRET (at least 16 characters …)". */
function documentedMinimums(name: string): Map<string, number> {
  return new Map([...text(name).matchAll(/\b([A-Z][A-Z0-9_]+) \(at least (\d+) characters/g)].map((m) => [m[1]!, Number(m[2])]));
}

// Values of the shape a user would set, short where the format allows it: a length the schema
// demands must be stated in the header, and a secret with a stated minimum gets exactly that many.
const SAMPLES: Record<string, string> = {
  ACME_API_KEY: `ctk_live_${'a1'.repeat(20)}`,
  ACME_V2_TOKEN: `v2_${'b2'.repeat(20)}`,
  DATABASE_URL: 'postgres://callsync:db-pass@db:5432/callsync',
  MYSQL_URL: 'mysql://callsync:db-pass@db:3306/callsync',
  CLICKHOUSE_URL: 'http://callsync:ch-pass@clickhouse:8123',
  STATUS_TOKEN: 'status-token-value',
  BETA_PASSWORD: 'beta-password',
  HUBSPOT_TOKEN: 'pat-na1-00000000-0000-0000-0000-000000000000',
  SALESFORCE_CONSUMER_KEY: '3MVG9consumerkey',
  WEBHOOK_URL: 'https://hooks.example.com/callsync',
  WEBHOOK_SECRET: 'hmac-key',
  POSTGRES_PASSWORD: 'postgres-password',
  CALLSYNC_STATUS_TOKEN: 'status-token-value',
  GLOBEX_API_KEY: `ctk_live_${'c3'.repeat(20)}`,
  ACME_WEBHOOK_SECRET: 'whsec_acme_0123456789abcdef',
  GLOBEX_WEBHOOK_SECRET: 'whsec_globex_0123456789abcdef',
};

function environment(name: string, shorten?: string): Record<string, string> {
  const minimums = documentedMinimums(name);
  return Object.fromEntries(
    documented(name).map((variable) => {
      const sample = SAMPLES[variable];
      if (sample === undefined) throw new Error(`${name} documents ${variable}: add a sample value to SAMPLES`);
      const minimum = minimums.get(variable);
      const length = minimum === undefined ? sample.length : variable === shorten ? minimum - 1 : minimum;
      return [variable, sample.padEnd(length, 'x').slice(0, length)];
    }),
  );
}

/** What the loader says is missing under an empty environment: the variables the file really needs. */
async function required(name: string): Promise<string[]> {
  const error = await loadConfig(join(CONFIG_DIR, name), { sinkSchema: sinkConfigSchema, env: {} }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error === undefined) return [];
  if (!(error instanceof ConfigError)) throw new Error(`${name}: the loader failed without a ConfigError`, { cause: error });
  return error.problems.flatMap((p) => /environment variable (\w+) is not set/.exec(p.message)?.[1] ?? []).sort();
}

const EXPECTED_SINK: Record<string, string> = {
  'clickhouse.yaml': 'clickhouse',
  'compose-callsync.yaml': 'postgres',
  'demo.yaml': 'sqlite',
  'duckdb.yaml': 'duckdb',
  'hubspot.yaml': 'hubspot',
  'mysql.yaml': 'mysql',
  'parquet.yaml': 'parquet',
  'postgres.yaml': 'postgres',
  'run-hooks.yaml': 'postgres',
  'salesforce.yaml': 'salesforce',
  'sqlite.yaml': 'sqlite',
  'webhook.yaml': 'webhook',
};

describe('the example configs in config/', () => {
  it('are all known to this test', () => {
    expect(callsyncConfigs).toEqual(Object.keys(EXPECTED_SINK).sort());
  });

  it.each(callsyncConfigs)('%s documents exactly the variables it needs and loads with them', async (name) => {
    expect(documented(name)).toEqual(await required(name));
    const loaded = await loadConfig(join(CONFIG_DIR, name), { sinkSchema: sinkConfigSchema, env: environment(name) }).catch((error: unknown) => {
      throw error instanceof ConfigError ? new Error(formatConfigError(error)) : error;
    });
    expect(loaded.config.sink.type).toBe(EXPECTED_SINK[name]);
    expect(loaded.config.businesses.length).toBeGreaterThan(0);
  });

  it.each(callsyncConfigs.flatMap((name) => [...documentedMinimums(name)].map(([variable, minimum]) => ({ name, variable, minimum }))))(
    '$name: $variable one character under the documented $minimum is refused',
    async ({ name, variable, minimum }) => {
      const error = await loadConfig(join(CONFIG_DIR, name), { sinkSchema: sinkConfigSchema, env: environment(name, variable) }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect(formatConfigError(error as ConfigError)).toMatch(new RegExp(`at least ${minimum} characters`));
    },
  );

  // Issue 30 item 21: no example showed a `hooks` section, and none went through check-config itself.
  it('include a run config that receives webhooks', () => {
    const withHooks = callsyncConfigs.filter((name) => 'hooks' in (parse(text(name)) as Record<string, unknown>));
    expect(withHooks).toEqual(['run-hooks.yaml']);
  });

  it.each(callsyncConfigs)('%s passes callsync check-config without a warning', async (name) => {
    const result = await runCli(['check-config', '--config', join(CONFIG_DIR, name)], environment(name));
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(`${name}: valid (sink ${EXPECTED_SINK[name]})`);
    expect(result.code).toBe(0);
  });

  it('compose.yaml passes the callsync replicas exactly the variables their mounted config needs', async () => {
    const compose = parse(text('compose.yaml')) as { services: { callsync: { environment: Record<string, string>; volumes: string[] } } };
    const { environment: passed, volumes } = compose.services.callsync;
    expect(volumes).toContain('./compose-callsync.yaml:/config/callsync.yaml:ro');
    expect(Object.keys(passed).sort()).toEqual(await required('compose-callsync.yaml'));
  });
});
