import { describe, expect, it } from 'vitest';
import { BudgetWaitError, UpstreamError } from '../../source/upstream/index.js';
import { runEnded, runEndOf, runFinished } from './run-end.js';

const request = { method: 'GET', host: 'calls.example.com', path: '/calls' };
const budget = { limit: 60, usedThisWindow: 60, resetAt: '2026-01-01T00:01:00.000Z' };

describe('runEndOf: the one translation of a run error', () => {
  it('turns a budget wait into a pause for exactly that long', () => {
    expect(runEndOf(new BudgetWaitError(42_000, 'acme'))).toMatchObject({ kind: 'paused', delayMs: 42_000, forBudget: true });
  });

  it('turns any error of an aborted run into an immediate pause, since its pages are stored', () => {
    const end = runEndOf(new UpstreamError('401', { code: 'UNAUTHORIZED', kind: 'auth', status: 401, request }), true);
    expect(end).toMatchObject({ kind: 'paused', delayMs: 0, forBudget: false });
  });

  it.each([
    ['auth', 401, 'business_stopped'],
    ['forbidden', 403, 'business_stopped'],
    ['transient', 500, 'stream_failed'],
    ['invalid', 404, 'stream_failed'],
  ] as const)('an upstream %s failure (%i) ends as %s', (kind, status, expected) => {
    expect(runEndOf(new UpstreamError(String(status), { code: 'X', kind, status, request })).kind).toBe(expected);
  });
});

describe('status after a run', () => {
  it('shows waiting_for_budget with the budget for a budget pause, idle for a shutdown pause', () => {
    expect(runEnded(runEndOf(new BudgetWaitError(1_000, 'acme')), budget)).toEqual({ state: 'waiting_for_budget', budget });
    expect(runEnded(runEndOf(new Error('x'), true), null)).toEqual({ state: 'idle' });
  });

  it('shows auth_failed or failed with the kind and message as the last error', () => {
    const auth = runEndOf(new UpstreamError('401 Invalid API key', { code: 'UNAUTHORIZED', kind: 'auth', status: 401, request }));
    expect(runEnded(auth, null)).toEqual({ state: 'auth_failed', lastError: 'auth: 401 Invalid API key' });
    expect(runEnded(runEndOf(new Error('boom')), null)).toEqual({ state: 'failed', lastError: 'internal: boom' });
  });

  it('keeps a warning visible as gap_warning and clears the last error on success', () => {
    expect(runFinished(0, 'possible gap', null)).toMatchObject({ state: 'gap_warning', warning: 'possible gap', lastError: null });
    expect(runFinished(0, null, budget)).toMatchObject({ state: 'idle', warning: null, lastSuccessAt: '1970-01-01T00:00:00.000Z', budget });
  });

  it("shows the sink's notes with the warnings without calling them a gap", () => {
    expect(runFinished(0, null, null, undefined, ['3 call(s) had both or neither number …'])).toMatchObject({
      state: 'idle',
      warning: '3 call(s) had both or neither number …',
    });
    expect(runFinished(0, 'possible gap', null, undefined, ['3 calls …'])).toMatchObject({ state: 'gap_warning', warning: 'possible gap; 3 calls …' });
  });
});
