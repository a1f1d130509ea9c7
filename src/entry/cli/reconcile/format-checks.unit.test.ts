import { describe, expect, it } from 'vitest';
import { formatChecks, reconcileExitCode } from './format-checks.js';

const row = {
  business: 'acme',
  stream: 'calls',
  stored: 600,
  upstream: 200,
  difference: -400,
  verdict: 'differs' as const,
  missing: 0,
  extra: 400,
  written: 0,
  markedDeleted: 0,
};

describe('reconcile output', () => {
  it('says under the table what the deletion guard held back, with the command that confirms it for that stream', () => {
    const text = formatChecks([{ ...row, heldDeletions: { count: 400, share: 400 / 600 } }]);
    expect(text.split('\n').at(-1)).toBe(
      'acme/calls: 400 records would be marked deleted (66.7 %); confirm with `callsync reconcile --repair --confirm-deletions` (this stream only: add --business acme --stream calls)',
    );
    expect(reconcileExitCode([{ ...row, heldDeletions: { count: 400, share: 400 / 600 } }])).toBe(1);
  });

  it('says what waits for the second whole walk, and nothing when the guard had nothing to say', () => {
    const waiting = formatChecks([{ ...row, stored: 100, upstream: 98, difference: -2, extra: 2, pendingDeletions: 2 }]);
    expect(waiting.split('\n').at(-1)).toBe(
      'acme/calls: 2 records upstream no longer lists wait for a second whole walk after reconcile.deleteAfter before they are marked deleted (--confirm-deletions marks them now)',
    );
    const exact = formatChecks([{ ...row, stored: 200, difference: 0, verdict: 'ok', extra: 0 }]);
    expect(exact.split('\n')).toHaveLength(3);
  });
});
