import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holderRuns } from './process-identity.js';

/** A process table with one entry per pid, and `self`, laid out as Linux lays out /proc. */
function fakeProc(entries: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'callsync-proc-'));
  for (const [pid, stat] of Object.entries({ self: '1 (node) S 0', ...entries })) {
    mkdirSync(join(root, pid));
    writeFileSync(join(root, pid, 'stat'), stat);
  }
  return root;
}

/** A stat line: `comm` as given, then fields 3 to 22 with the state and the start where Linux has them. */
function stat(pid: number, comm: string, state: string, start: number): string {
  const middle = Array.from({ length: 18 }, (_, i) => String(i));
  return `${pid} (${comm}) ${state} ${middle.join(' ')} ${start} 0 0\n`;
}

describe('holderRuns', () => {
  it('reads the state and start after the last parenthesis of a command name holding spaces and parentheses', () => {
    const proc = fakeProc({ '40': stat(40, 'a) S 1 (b', 'S', 777) });
    expect(holderRuns(40, 'proc:777', proc)).toBe(true);
    expect(holderRuns(40, 'proc:778', proc)).toBe(false);
    // A record without a start (written before starts were recorded) still sees a running process.
    expect(holderRuns(40, undefined, proc)).toBe(true);
  });

  it('calls a zombie, a dead entry and a missing pid gone', () => {
    const proc = fakeProc({ '41': stat(41, 'node', 'Z', 5), '42': stat(42, 'node', 'X', 5) });
    expect(holderRuns(41, 'proc:5', proc)).toBe(false);
    expect(holderRuns(42, undefined, proc)).toBe(false);
    expect(holderRuns(43, undefined, proc)).toBe(false);
  });
});
