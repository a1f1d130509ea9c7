import { describe, expect, it } from 'vitest';
import type { BusinessStatus, StatusSnapshot, StreamState, StreamStatus } from '../../engine/state/index.js';
import { formatStatusSummary } from './status-summary-text.js';
import { lagged, NOW, streamStatus } from '../../../test/support/status-fixtures.js';

function status(business: string, stream: string, state: StreamState = 'idle', lagSeconds: number | null = 30, lastError: string | null = null): StreamStatus {
  return streamStatus({ business, stream, state, ...lagged(lagSeconds), recordsSynced: 7, pages: 1, lastError });
}

/** 10,000 healthy businesses, 40 failed streams and one stopped business. */
function fleet(): StatusSnapshot {
  const businesses: BusinessStatus[] = Array.from({ length: 10_000 }, (_, i) => {
    const name = `biz-${String(i).padStart(5, '0')}`;
    const calls = i % 250 === 1 ? status(name, 'calls', 'failed', 60 + i, 'server: GET /calls: 500') : status(name, 'calls');
    return { name, failed: null, activity: [], streams: [calls, status(name, 'numbers'), status(name, 'voicemails')] };
  });
  businesses[5] = {
    name: 'biz-00005',
    failed: 'auth: 401 Invalid API key',
    activity: [],
    streams: [status('biz-00005', 'calls', 'auth_failed', null, 'GET /calls: 401')],
  };
  return { generatedAt: NOW, businesses };
}

describe('callsync status summary', () => {
  it('fits 10,000 businesses on one screen: the counts, the stop, the worst streams first, a fix per kind', () => {
    const lines = formatStatusSummary(fleet(), { width: 120, lateAfterSeconds: 300, limit: 5 }).split('\n');
    expect(lines.length).toBeLessThanOrEqual(20);
    expect(lines.slice(0, 5)).toEqual([
      `10,000 businesses (1 stopped), 29,998 streams, as of ${NOW}`,
      'needs a person 41: auth failed 1 · failed 40 · drift 0 · gap warning 0 · waiting long 0',
      'other states: waiting for budget 0 · syncing 0 · idle 29,957; waiting long = no successful run for 5m or more',
      'biz-00005: STOPPED: auth: 401 Invalid API key',
      '  fix: fix the key (apiKey, session or v2Token of business biz-00005), then `callsync resume biz-00005`',
    ]);
    const table = lines.indexOf('NEEDS A PERSON: 41 streams, most behind first');
    expect(lines[table + 1]).toMatch(/^BUSINESS\s+STREAM\s+STATE/);
    expect(lines.slice(table + 2, table + 7).map((line) => line.split(/\s+/).slice(0, 3).join(' '))).toEqual([
      'biz-00005 calls auth',
      'biz-09751 calls failed',
      'biz-09501 calls failed',
      'biz-09251 calls failed',
      'biz-09001 calls failed',
    ]);
    expect(lines[table + 7]).toBe('… and 36 more (--limit N shows more; --all lists every stream)');
    const auth = lines.indexOf('auth failed (1), e.g. biz-00005/calls:');
    expect(lines[auth + 1]).toBe('  fix: fix the key (apiKey, session or v2Token of business biz-00005), then `callsync resume biz-00005`');
    const failed = lines.indexOf('failed (40), e.g. biz-09751/calls:');
    // A fix is never cut: it wraps.
    expect(lines.slice(failed + 1, failed + 3)).toEqual([
      '  fix: read the last error; the next scheduled run retries (`callsync backfill --business biz-09751 --stream calls` runs',
      '       it now)',
    ]);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThanOrEqual(120);
  });

  it('names streams waiting long with what to check, and says so when nothing needs a person', () => {
    const late: StatusSnapshot = {
      generatedAt: NOW,
      businesses: [{ name: 'acme', failed: null, activity: [], streams: [status('acme', 'calls', 'waiting_for_budget', 7200)] }],
    };
    const text = formatStatusSummary(late, { lateAfterSeconds: 300 });
    expect(text).toContain(
      'waiting long (1), e.g. acme/calls:\n  fix: no successful run for 5m or more: check that a `callsync run` worker is up (its /readyz)',
    );
    const calm: StatusSnapshot = { generatedAt: NOW, businesses: [{ name: 'acme', failed: null, activity: [], streams: [status('acme', 'calls')] }] };
    expect(formatStatusSummary(calm, { lateAfterSeconds: 300 }).split('\n').slice(-2)).toEqual([
      'Nothing needs a person.',
      'callsync status --all lists every stream.',
    ]);
    expect(formatStatusSummary({ generatedAt: NOW, businesses: [] }, { lateAfterSeconds: 300 })).toBe(`No status reported yet (as of ${NOW}).`);
  });
});
