import { describe, expect, it } from 'vitest';
import type { BusinessOutcome } from '../../../engine/sync/sync-event.js';
import { failedBusinesses, formatSummary } from './summary.js';

const ok = { pages: 2, records: 700, written: 700, unchanged: 0, deadLettered: 1, warnings: [], stopped: false };

const outcomes: BusinessOutcome[] = [
  { business: 'acme', streams: [{ stream: 'calls', result: ok }] },
  {
    business: 'globex',
    streams: [{ stream: 'calls', failure: { scope: 'business', kind: 'auth', message: 'GET /calls: 401 Invalid API key' } }],
    failure: { scope: 'business', kind: 'auth', message: 'GET /calls: 401 Invalid API key' },
  },
  {
    business: 'initech',
    streams: [
      { stream: 'numbers', result: ok },
      { stream: 'sms', failure: { scope: 'stream', kind: 'invalid', message: 'GET /sms: 404' } },
    ],
  },
];

describe('backfill summary', () => {
  it('names every failed business with its reason, stream failures included', () => {
    expect(failedBusinesses(outcomes)).toEqual([
      { business: 'globex', reason: 'auth: GET /calls: 401 Invalid API key', failure: outcomes[1]?.failure },
      { business: 'initech', reason: 'invalid: GET /sms: 404', failure: { scope: 'stream', kind: 'invalid', message: 'GET /sms: 404' } },
    ]);
  });

  it('prints one row per business and stream with status and counts', () => {
    const lines = formatSummary(outcomes).split('\n');
    expect(lines).toHaveLength(2 + 4);
    expect(lines[2]).toMatch(/^acme\s+calls\s+ok\s+700\s+700\s+1\s+2/);
    expect(lines[3]).toMatch(/^globex\s+calls\s+failed \(auth\).*401 Invalid API key/);
  });

  it("notes the sink's notes after the warnings", () => {
    const noted = { ...ok, warnings: ['server caps the page'], notes: ['12 call(s) had both or neither number among the tracked numbers'] };
    const lines = formatSummary([{ business: 'acme', streams: [{ stream: 'calls', result: noted }] }]).split('\n');
    expect(lines[2]).toMatch(/ok.*server caps the page; 12 call\(s\) had both or neither number/);
  });
});
