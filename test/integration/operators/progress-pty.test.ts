import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { configDocument } from '../support/backfill-harness.js';
import { cliCommand } from '../support/cli-process.js';

/** Shell quoting for the one command line `script -c` takes. */
const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

/** Runs `callsync <args>` on a pseudo-terminal (util-linux `script`), returning all it drew. */
async function runOnTerminal(args: readonly string[]): Promise<{ code: number | null; screen: string }> {
  const [node, nodeArgs] = cliCommand(args);
  const line = `stty cols 200 rows 40; exec ${[node, ...nodeArgs].map(quote).join(' ')}`;
  const child = spawn('script', ['-qfec', line, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm' } });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (screen += chunk));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, screen };
}

// eslint-disable-next-line no-control-regex
const plain = (text: string): string => text.replace(/\x1b\[[0-?]*[ -/]*[@-~]/g, '');

describe('backfill progress bars on a terminal', () => {
  let simulator: Simulator;
  let directory: string;

  beforeAll(async () => {
    // A budget of 3 requests every 3 s (a request a second) for 800 calls in pages of 100: the bar must wait for budget.
    simulator = await startSimulator({ businesses: 1, calls: 800, voicemails: 5, numbers: 2, seed: 5, rateLimit: { limit: 3, windowMs: 3_000 } });
    directory = mkdtempSync(join(tmpdir(), 'callsync-pty-'));
  });

  afterAll(async () => {
    await simulator.close();
  });

  it('shows syncing, waiting for budget until a time, retrying (reason) n/m, then done, with no log line over the bars', async () => {
    const configPath = join(directory, 'callsync.json');
    const document = configDocument(simulator, join(directory, 'pty.db'), { pageSize: 100, rateLimit: { requests: 3, perMs: 3_000 }, logLevel: 'info' });
    writeFileSync(
      configPath,
      JSON.stringify({ ...document, upstream: { ...document.upstream, retry: { maxAttempts: 5, baseDelayMs: 300, maxDelayMs: 600 } } }),
    );
    // Two 503s with Retry-After 1 on the first requests: the bar says it is retrying.
    simulator.setHostile({ unavailable: { requests: 2, retryAfter: '1' } });
    const { code, screen } = await runOnTerminal(['backfill', '--config', configPath, '--business', 'biz-1']);
    const text = plain(screen);
    expect(code, text).toBe(0);
    expect(text).toMatch(/biz-1 \|.*\| \d+\/\d+ records \| [\d.]+ rec\/s \| ETA \S+ \| retrying \(.*HTTP 503.*\) 1\/5/);
    expect(text).toMatch(/\| waiting for budget until \d\d:\d\d:\d\d/);
    expect(text).toMatch(/\| syncing calls/);
    expect(text).toMatch(/\| 807\/807 records \| [\d.]+ rec\/s \| ETA 0s \| done/);
    expect(text).not.toMatch(/\| waiting for budget.*\n.*"level"/);
    // The info lines (sink prepared…) come after the bars are drawn for the last time, never between redraws.
    const lastBar = text.lastIndexOf('| done');
    const firstLog = text.indexOf('{"level"');
    expect(firstLog).toBeGreaterThan(lastBar);
    // A real rate: records per second, not a request count, and not zero while records arrive.
    expect(text).toMatch(/\| [1-9][\d.]* rec\/s/);
  });
});
