import { describe, expect, it } from 'vitest';
import { BusinessProgress } from './business-progress.js';

describe('BusinessProgress', () => {
  it('estimates the time left from the reported total and the request budget', () => {
    const progress = new BusinessProgress('acme', { limit: 60, windowMs: 60_000 }, 500);
    progress.recordPage('calls', 500, 20_000, 0);
    // 19,500 records left = 39 requests at one per second.
    expect(progress.etaSeconds(0)).toBe(39);
    expect(progress.expectedRecords()).toBe(20_000);
  });

  it('adds what is left of a budget wait to the estimate', () => {
    const progress = new BusinessProgress('acme', { limit: 60, windowMs: 60_000 }, 500);
    progress.recordPage('calls', 500, 20_000, 0);
    progress.phase = { kind: 'waiting', untilMs: 54_000 };
    expect(progress.etaSeconds(4_000)).toBe(39 + 50);
  });

  it('measures records per second over the window, so a stall shows as a falling rate', () => {
    const progress = new BusinessProgress('acme', undefined, 100);
    progress.start('calls', 0);
    for (let second = 1; second <= 10; second += 1) progress.recordPage('calls', 100, 10_000, second * 1000);
    expect(progress.recordsPerSecond(10_000)).toBe(100);
    // Twenty seconds of nothing: the same 1,000 records now spread over 30 s.
    expect(progress.recordsPerSecond(30_000)).toBeCloseTo(1_000 / 30, 5);
    // Past the window nothing is left.
    expect(progress.recordsPerSecond(45_000)).toBe(0);
  });

  it('estimates from the measured rate when the budget is off', () => {
    const progress = new BusinessProgress('acme', undefined, 100);
    progress.start('calls', 0);
    for (let second = 1; second <= 10; second += 1) progress.recordPage('calls', 100, 3_000, second * 1000);
    // 2,000 left at 100 records/s.
    expect(progress.etaSeconds(10_000)).toBe(20);
  });

  it('adds streams without totals at what was seen', () => {
    const progress = new BusinessProgress('acme', undefined, 500);
    progress.recordPage('calls', 500, 1_000, 0);
    progress.recordPage('voicemails', 80, undefined, 0);
    expect(progress.expectedRecords()).toBe(1_080);
  });
});

describe('BusinessProgress phase', () => {
  it('keeps a budget wait while the page before it is stored, and ends it at its time or at an answer', () => {
    const progress = new BusinessProgress('acme', undefined, 100);
    progress.start('calls', 0);
    progress.phase = { kind: 'waiting', untilMs: 5_000 };
    progress.recordPage('calls', 100, 1_000, 1_000);
    expect(progress.phaseAt(1_000)).toEqual({ kind: 'waiting', untilMs: 5_000 });
    expect(progress.phaseAt(5_000)).toEqual({ kind: 'syncing' });
    progress.phase = { kind: 'retrying', reason: 'HTTP 503', attempt: 1, maxAttempts: 5 };
    progress.answered();
    expect(progress.phaseAt(6_000)).toEqual({ kind: 'syncing' });
  });
});
