import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli-process.js';

// Issue 30 item 19: commander ended these with exit 1 (and the whole help), though docs/commands.md "Exit codes and messages" gives 2 to a bad command line.
describe('a command line mistake', () => {
  it.each([
    ['an unknown command', ['nosuch'], "error: unknown command 'nosuch'", 'callsync'],
    ['an unknown option', ['backfill', '--config', 'x.yaml', '--frob'], "error: unknown option '--frob'", 'callsync backfill'],
    ['an option without its value', ['check-config', '--config'], "error: option '-c, --config <file>' argument missing", 'callsync check-config'],
    ['a missing required option', ['dead-letters', 'list'], "error: required option '-c, --config <file>' not specified", 'callsync dead-letters list'],
    ['an invalid option value', ['status', '--config', 'x.yaml', '--limit', '0'], "error: option '--limit <n>' argument '0' is invalid", 'callsync status'],
    [
      'a flag that needs another (said by the command itself)',
      ['simulate', '--webhooks', 'http://127.0.0.1:1/hooks'],
      'error: --webhooks needs --webhook-secret',
      'callsync simulate',
    ],
  ])('%s exits 2 in two lines: the mistake and where the usage is', async (_name, args, error, command) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(error);
    expect(lines[1]).toBe(`fix: see ${command} --help`);
    expect(result.stdout).toBe('');
  });

  it('is not --help, which still exits 0', async () => {
    const result = await runCli(['backfill', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: callsync backfill');
  });
});
