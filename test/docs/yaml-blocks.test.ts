import { describe, expect, it } from 'vitest';
import { sinkConfigSchema } from '../../connectors/registry.js';
import { ConfigError, formatConfigError, resolveConfig } from '../../src/config/index.js';
import { parseConfigText } from '../../src/config/parse-text.js';
import { docsPages, fencedBlocks, readRepoFile } from './markdown.js';

/**
 * A ```yaml block is a whole config; a ```yaml fragment block is one or more sections, laid over
 * this minimal config (its top-level keys replace the minimal ones) before it is validated.
 */
const MINIMAL = {
  upstream: { baseUrl: 'https://calls.example.com', v2BaseUrl: 'https://v2.calls.example.com' },
  businesses: [{ name: 'acme', apiKey: 'ctk_live_docs_example_key', v2Token: 'v2_docs_example_token' }],
  sink: { type: 'sqlite', path: './data/callsync.db' },
};

// Values of the shape a user would set for the `${NAME}` references the pages use.
const ENV: NodeJS.ProcessEnv = {
  ACME_API_KEY: `ctk_live_${'a1'.repeat(20)}`,
  ACME_V2_TOKEN: `v2_${'b2'.repeat(20)}`,
  ACME_WEBHOOK_SECRET: 'acme-webhook-secret-0123456789',
  DATABASE_URL: 'postgres://callsync:db-pass@db:5432/callsync',
  MYSQL_URL: 'mysql://callsync:db-pass@db:3306/callsync',
  STATUS_TOKEN: 'status-token-value-0123456789',
  WEBHOOK_SECRET: 'webhook-secret-0123456789abcdef',
  WEBHOOK_RECEIVER_SECRET: 'receiver-secret-0123456789abcdef',
  HUBSPOT_TOKEN: 'pat-na1-00000000-0000-0000-0000-000000000000',
  SALESFORCE_CONSUMER_KEY: '3MVG9consumerkey',
};

interface Block {
  readonly where: string;
  readonly fragment: boolean;
  readonly text: string;
}

const blocks: Block[] = docsPages().flatMap((page) =>
  fencedBlocks(readRepoFile(page))
    .filter((block) => /^yaml\b/.test(block.info))
    .map((block) => ({ where: `${page}:${block.line}`, fragment: block.info.split(/\s+/).includes('fragment'), text: block.text })),
);

/** The problems `check-config` would list for this block, one line each; empty when it validates. */
function problems(block: Block): string[] {
  const parsed = parseConfigText(block.text, `${block.where}.yaml`);
  if (!parsed.ok) return parsed.problems.map((problem) => `${problem.path}: ${problem.message}`);
  const document: unknown = block.fragment ? { ...MINIMAL, ...(parsed.value as Record<string, unknown>) } : parsed.value;
  try {
    resolveConfig(document, {
      sinkSchema: sinkConfigSchema,
      env: ENV,
      readFile: (path) => {
        throw new Error(`the docs' examples read no secret file (${path})`);
      },
      file: block.where,
    });
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return formatConfigError(error).split('\n');
    throw error;
  }
}

describe('YAML examples in docs/', () => {
  it('include a whole config with a hooks section', () => {
    expect(blocks.some((block) => !block.fragment && /^hooks:/m.test(block.text))).toBe(true);
  });

  it('are checked: an unknown key or a bad value is a problem', () => {
    expect(problems({ where: 'test', fragment: true, text: 'sink: { type: sqlite, path: x.db, colour: blue }' })).not.toEqual([]);
    expect(problems({ where: 'test', fragment: true, text: 'upstream: { baseUrl: ftp://x }' })).not.toEqual([]);
    expect(problems({ where: 'test', fragment: true, text: 'schedule: { every: 5m }' })).toEqual([]);
  });

  it.each(blocks)('$where validates against the config schema', (block) => {
    expect(problems(block)).toEqual([]);
  });
});
