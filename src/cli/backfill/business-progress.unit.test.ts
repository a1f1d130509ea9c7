import { describe, expect, it } from 'vitest';
import { BusinessProgress } from './business-progress.js';

describe('BusinessProgress', () => {
  it('estimates the time left from the reported total and the request budget', () => {
    const progress = new BusinessProgress('acme', { limit: 60, windowMs: 60_000 }, 500);
    progress.recordPage('calls', 500, 20_000);
    // 19,500 records left = 39 requests at one per second.
    expect(progress.etaSeconds(0)).toBe(39);
    expect(progress.expectedRecords()).toBe(20_000);
  });

  it('estimates from the observed request pace when the budget is off', () => {
    const progress = new BusinessProgress('acme', undefined, 100);
    for (let second = 0; second < 30; second += 1) progress.recordRequest(second * 1000);
    progress.recordPage('calls', 100, 1_000);
    // 9 requests left at 30 per minute.
    expect(progress.etaSeconds(30_000)).toBe(18);
  });

  it('counts only the last minute of requests', () => {
    const progress = new BusinessProgress('acme', undefined, 100);
    progress.recordRequest(0);
    progress.recordRequest(59_000);
    progress.recordRequest(70_000);
    expect(progress.requestsPerMinute(70_000)).toBe(2);
  });

  it('adds streams without totals at what was seen', () => {
    const progress = new BusinessProgress('acme', undefined, 500);
    progress.recordPage('calls', 500, 1_000);
    progress.recordPage('voicemails', 80, undefined);
    expect(progress.expectedRecords()).toBe(1_080);
  });
});
