import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { configDocument } from '../integration/support/backfill-harness.js';
import { runCli } from '../integration/support/cli-process.js';
import { recordRow } from './support/results.js';
import { SecretScanner } from './support/secret-scanner.js';

type Document = ReturnType<typeof configDocument>;

interface BadConfig {
  readonly name: string;
  /** The config path the message must name, as a pattern. */
  readonly path: RegExp;
  /** What else the message must say. */
  readonly says?: RegExp;
  /** The file's text, from the valid document. */
  readonly text: (valid: Document) => string;
  readonly extension?: 'json' | 'yaml';
}

const json = (mutate: (valid: Document) => unknown) => (valid: Document) => JSON.stringify(mutate(structuredClone(valid)));

const BAD_CONFIGS: readonly BadConfig[] = [
  { name: 'missing baseUrl', path: /upstream\.baseUrl/, text: json((d) => ({ ...d, upstream: { ...d.upstream, baseUrl: undefined } })) },
  { name: 'pageSize as a string', path: /upstream\.pageSize/, text: json((d) => ({ ...d, upstream: { ...d.upstream, pageSize: '100' } })) },
  {
    name: 'negative rate limit',
    path: /upstream\.rateLimit/,
    text: json((d) => ({ ...d, upstream: { ...d.upstream, rateLimit: { requests: -5, perMs: 1000 } } })),
  },
  { name: 'businesses as an object', path: /businesses/, text: json((d) => ({ ...d, businesses: { name: 'biz-1' } })) },
  {
    name: 'unknown key',
    path: /businesses\[0\]/,
    says: /api_key/,
    text: json((d) => ({ ...d, businesses: d.businesses.map((b, i) => (i === 0 ? { ...b, api_key: 'x' } : b)) })),
  },
  {
    name: 'unset ${ENV}',
    path: /businesses\[1\]\.apiKey/,
    says: /CALLSYNC_CHAOS_UNSET/,
    text: json((d) => ({ ...d, businesses: d.businesses.map((b, i) => (i === 1 ? { ...b, apiKey: '${CALLSYNC_CHAOS_UNSET}' } : b)) })),
  },
  {
    name: 'unreadable ${file:}',
    path: /businesses\[0\]\.apiKey/,
    says: /\/nonexistent/,
    text: json((d) => ({ ...d, businesses: d.businesses.map((b, i) => (i === 0 ? { ...b, apiKey: '${file:/nonexistent/api-key}' } : b)) })),
  },
  { name: 'not a URL', path: /upstream\.baseUrl/, text: json((d) => ({ ...d, upstream: { ...d.upstream, baseUrl: 'not a url' } })) },
  { name: 'ftp URL', path: /upstream\.v2BaseUrl/, text: json((d) => ({ ...d, upstream: { ...d.upstream, v2BaseUrl: 'ftp://127.0.0.1/v2' } })) },
  {
    name: 'duplicate business names',
    path: /businesses\[1\]/,
    says: /biz-1/,
    text: json((d) => ({ ...d, businesses: d.businesses.map((b) => ({ ...b, name: 'biz-1' })) })),
  },
  {
    name: 'unsafe Postgres schema',
    path: /sink\.schema/,
    text: json((d) => ({ ...d, sink: { type: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test', schema: 'x"; drop table calls; --' } })),
  },
  {
    name: 'unsafe extra stream name',
    path: /streams\[0\]\.name/,
    text: json((d) => ({ ...d, streams: [{ name: 'sms"; drop table calls; --', path: '/sms', recordsKey: 'messages' }] })),
  },
  { name: 'invalid YAML', path: /:\d+:\d+/, says: /YAML/i, extension: 'yaml', text: () => 'upstream:\n  baseUrl: [unclosed\nbusinesses:\n  - name: a\n' },
];

const scanner = new SecretScanner();
let simulator: Simulator;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 2, calls: 10, voicemails: 2, numbers: 1, seed: 808 });
  scanner.addSimulator(simulator);
  directory = mkdtempSync(join(tmpdir(), 'callsync-chaos-config-'));
});

afterAll(async () => {
  await simulator.close();
});

describe('scenario 8: a matrix of bad configs', () => {
  it('check-config and backfill exit 2 with a message naming the file and the path, no stack trace, nothing written', async () => {
    const limit = pLimit(4);
    const outcomes = await Promise.all(
      BAD_CONFIGS.flatMap((bad, index) => {
        const databasePath = join(directory, `never-${index}.db`);
        const configPath = join(directory, `bad-${index}.${bad.extension ?? 'json'}`);
        writeFileSync(configPath, bad.text(configDocument(simulator, databasePath)));
        return [
          ['check-config', configPath],
          ['backfill', '--config', configPath, '--no-progress'],
        ].map((args) => limit(async () => ({ bad, args, configPath, databasePath, result: await runCli(args) })));
      }),
    );
    const problems: string[] = [];
    for (const { bad, args, configPath, databasePath, result } of outcomes) {
      const output = result.stdout + result.stderr;
      scanner.collect(`${bad.name} ${args[0]}`, output);
      const label = `${bad.name} / ${args[0]}`;
      if (result.code !== 2) problems.push(`${label}: exit ${result.code}`);
      if (!result.stderr.includes(configPath)) problems.push(`${label}: does not name the file`);
      if (!bad.path.test(result.stderr)) problems.push(`${label}: does not name the path ${bad.path}`);
      if (bad.says !== undefined && !bad.says.test(result.stderr)) problems.push(`${label}: does not say ${bad.says}`);
      if (/\n\s+at .+:\d+:\d+\)?\n/.test(output)) problems.push(`${label}: prints a stack trace`);
      if (existsSync(databasePath)) problems.push(`${label}: created the database`);
      if (problems.length > 0 && problems.at(-1)?.startsWith(label)) problems.push(`  ${label} stderr: ${result.stderr.slice(0, 300)}`);
    }
    const clean = outcomes.length - new Set(problems.filter((p) => !p.startsWith('  ')).map((p) => p.split(':')[0])).size;
    recordRow({
      scenario: '8 bad configs',
      faults: { badConfig: BAD_CONFIGS.length },
      restarts: 0,
      expected: 0,
      found: 0,
      missing: 0,
      duplicated: 0,
      note: `${clean}/${outcomes.length} runs: exit 2, file + path named, no stack`,
    });
    expect(problems).toEqual([]);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('bad-config').leaks).toEqual([]);
  });
});
