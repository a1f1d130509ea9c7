import { describe, expect, it } from 'vitest';
import type { StreamStatus } from '../../engine/state/index.js';
import type { StatusSnapshot } from '../../engine/state/index.js';
import { formatStatusJson, formatStatusTable, shorten, terminalSafe } from './status-table.js';
import { BUSY, NOW, streamStatus } from '../../../test/support/status-fixtures.js';

function status(overrides: Partial<StreamStatus> = {}): StreamStatus {
  return streamStatus({ lastSuccessAt: '2024-05-01T10:55:00.000Z', lagSeconds: 3900, ...BUSY, budget: { ...BUSY.budget, resetAt: NOW }, ...overrides });
}

const activity = [
  { minute: '2024-05-01T11:59Z', records: 5 },
  { minute: '2024-05-01T12:00Z', records: 7 },
];

describe('status table', () => {
  it('prints one aligned row per stream with readable values, then a line per business', () => {
    const snapshot: StatusSnapshot = {
      generatedAt: NOW,
      businesses: [
        {
          name: 'acme',
          failed: null,
          activity,
          streams: [
            status({ walk: { order: 'newest_first', walkInProgress: false } }),
            status({
              stream: 'voicemails',
              state: 'gap_warning',
              warning: 'possible gap',
              recordsSynced: 5,
              budget: null,
              lagSeconds: null,
              lastSuccessAt: null,
            }),
          ],
        },
        { name: 'bolt', failed: 'upstream 401: invalid API key', activity: [], streams: [] },
      ],
    };
    expect(formatStatusTable(snapshot, { width: 160 }).split('\n')).toEqual([
      'BUSINESS  STREAM      STATE        LAST SUCCESS     LAG    RECORDS                      BUDGET  DEAD  WALK          LAST ERROR / WARNING',
      'acme      calls       idle         1h 05m ago    1h 05m  1,234,567  12/60, resets 12:00:00 UTC     3  newest first  -',
      'acme      voicemails  gap warning  never              -          5                           -     3  -             possible gap',
      '',
      'acme: 12 records in the last hour',
      'bolt: 0 records in the last hour; STOPPED: upstream 401: invalid API key',
      '  fix: fix the key (apiKey, session or v2Token of business bolt), then `callsync resume bolt`',
      'acme/voicemails gap warning: fix: read the warning; `callsync reconcile --business acme --stream voicemails` compares with upstream',
      `as of ${NOW}`,
    ]);
  });

  it.each([
    [{ order: 'oldest_first' as const }, 'oldest first'],
    [{ order: 'newest_first' as const, walkInProgress: true, pageCap: 100 }, 'newest first, deep walk, cap 100'],
    [{ serverCap: 250 }, 'cap 250'],
    [{}, '-'],
  ])('shows what the stored position says of the walk: %o → %s', (walk, text) => {
    const snapshot: StatusSnapshot = { generatedAt: NOW, businesses: [{ name: 'acme', failed: null, activity, streams: [status({ walk })] }] };
    expect(formatStatusTable(snapshot, { width: 200 }).split('\n')[1]).toContain(`  ${text}  `);
  });

  it('never exceeds the width, shortening long names and messages with an ellipsis', () => {
    const long = 'x'.repeat(300);
    const snapshot: StatusSnapshot = {
      generatedAt: NOW,
      businesses: [
        {
          name: long,
          failed: long,
          activity,
          streams: [status({ business: long, stream: long, state: 'waiting_for_budget', lastError: long, warning: long })],
        },
      ],
    };
    for (const width of [120, 80]) {
      const lines = formatStatusTable(snapshot, { width }).split('\n');
      expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(width);
      expect(lines[1]).toMatch(/^x{17}… {2}x{11}… {2}waiting for budget/);
      expect(lines[1]).toMatch(/…$/);
    }
  });

  it('strips terminal control sequences and newlines out of stored text', () => {
    const hostile = 'boom\u001b[2J\u001b]0;pwned\u0007\nsecond line\u009b31m';
    const snapshot: StatusSnapshot = {
      generatedAt: NOW,
      businesses: [{ name: 'acme', failed: hostile, activity, streams: [status({ lastError: hostile })] }],
    };
    const table = formatStatusTable(snapshot);
    const controls = Array.from(table).filter((c) => c !== '\n' && ((c.codePointAt(0) ?? 0) < 0x20 || /[\x7f-\x9f]/.test(c)));
    expect(controls).toEqual([]);
    // Whole sequences go, not only their escape byte: nothing of "[2J" or the window title is left.
    expect(table).toContain('boom second line');
    expect(table).not.toMatch(/\[2J|pwned|31m/);
  });

  it('a drift whose deletions the guard held says how many, and the fix is to check upstream, then confirm', () => {
    const warning =
      '400 records would be marked deleted (66.7 %); confirm with `callsync reconcile --repair --confirm-deletions`; drift: upstream has 200, the sink 600 (400 stored that upstream no longer lists)';
    const snapshot: StatusSnapshot = {
      generatedAt: NOW,
      businesses: [{ name: 'acme', failed: null, activity, streams: [status({ state: 'drift', warning, difference: -400 })] }],
    };
    expect(formatStatusTable(snapshot, { width: 400 })).toContain(
      '400 records would be marked deleted (66.7 %); confirm with `callsync reconcile --repair --confirm-deletions`',
    );
    // The fix line is whole in a 120-column terminal.
    expect(formatStatusTable(snapshot, { width: 120 }).split('\n')).toContain(
      'acme/calls drift: fix: check upstream really dropped them, then `callsync reconcile --repair --confirm-deletions`',
    );
  });

  it('says so when nothing has reported', () => {
    expect(formatStatusTable({ generatedAt: NOW, businesses: [] })).toBe(`No status reported yet (as of ${NOW}).`);
  });

  it('gives the same document as GET /status for --json', () => {
    const snapshot: StatusSnapshot = { generatedAt: NOW, businesses: [{ name: 'acme', failed: null, activity, streams: [status()] }] };
    expect(JSON.parse(formatStatusJson(snapshot))).toEqual(snapshot);
  });
});

describe('terminal text helpers', () => {
  it.each([
    ['abc', 5, 'abc'],
    ['abcdef', 5, 'abcd…'],
    ['😀😀😀😀😀😀', 3, '😀😀…'],
  ])('shorten(%j, %i) is %j', (text, width, expected) => {
    expect(shorten(text, width)).toBe(expected);
  });

  it('collapses whitespace and removes controls', () => {
    expect(terminalSafe(' a\t\tb\r\nc\u0000 ')).toBe('a b c');
  });
});
