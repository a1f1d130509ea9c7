import { describe, expect, it } from 'vitest';
import type { BusinessStatus, StatusSnapshot, StreamState, StreamStatus } from '../../engine/state/index.js';
import { renderStatusPage } from './status-page.js';
import { lagged, NOW, streamStatus } from '../../../test/support/status-fixtures.js';
import { parseSummaryQuery, STREAMS_PER_PAGE, summaryView } from './status-page-view.js';
import { attentionOf, byLag, lateAfterSeconds, summarize } from './status-summary.js';

const LATE = 300;

function status(business: string, stream: string, state: StreamState = 'idle', lagSeconds: number | null = 30): StreamStatus {
  return streamStatus({
    business,
    stream,
    state,
    ...lagged(lagSeconds),
    recordsSynced: 10,
    pages: 1,
    lastError: state === 'failed' ? `boom in ${business}` : null,
  });
}

function business(name: string, streams: StreamStatus[], failed: string | null = null): BusinessStatus {
  return { name, failed, streams, activity: [{ minute: '2024-05-01T12:00Z', records: 5 }] };
}

/** 1,000 healthy businesses and a few that need a person, at known lags. */
function fleet(): StatusSnapshot {
  const businesses = Array.from({ length: 1000 }, (_, i) => {
    const name = `biz-${String(i).padStart(4, '0')}`;
    return business(
      name,
      ['calls', 'numbers', 'voicemails'].map((stream) => status(name, stream)),
    );
  });
  const set = (index: number, stream: number, value: StreamStatus, failed?: string) => {
    const target = businesses[index] as BusinessStatus;
    businesses[index] = business(
      target.name,
      target.streams.map((s, i) => (i === stream ? value : s)),
      failed ?? null,
    );
  };
  set(10, 0, status('biz-0010', 'calls', 'failed', 900));
  set(20, 1, status('biz-0020', 'numbers', 'drift', 60));
  set(30, 2, status('biz-0030', 'voicemails', 'auth_failed', null), 'auth: 401 Invalid API key');
  set(40, 0, status('biz-0040', 'calls', 'waiting_for_budget', 4000));
  set(50, 0, status('biz-0050', 'calls', 'gap_warning', 120));
  set(60, 1, status('biz-0060', 'numbers', 'waiting_for_budget', 90));
  return { generatedAt: NOW, businesses };
}

function page(snapshot: StatusSnapshot, query = ''): string {
  const parsed = parseSummaryQuery(new URLSearchParams(query));
  if ('error' in parsed) throw new Error(parsed.error);
  return renderStatusPage(summaryView(snapshot, parsed, LATE));
}

const rowsOf = (html: string): string[] =>
  [...html.matchAll(/<tr data-business="([^"]+)" data-stream="([^"]+)">.*?data-state="([a-z_]+)"/g)].map((m) => `${m[1]}/${m[2]} ${m[3]}`);

describe('status summary', () => {
  it('counts every state, the streams waiting long, what needs a person and the stopped businesses', () => {
    const summary = summarize(fleet(), LATE);
    expect(summary).toEqual({
      businesses: 1000,
      streams: 3000,
      byState: { idle: 2994, syncing: 0, waiting_for_budget: 2, auth_failed: 1, gap_warning: 1, drift: 1, failed: 1 },
      waitingLong: 1,
      needsPerson: 5,
      stoppedBusinesses: 1,
      lateAfterSeconds: LATE,
    });
  });

  it.each([
    ['failed', 10, 'failed'],
    ['idle', 299, null],
    ['idle', 300, 'waiting_long'],
    ['syncing', 301, 'waiting_long'],
    ['waiting_for_budget', 4000, 'waiting_long'],
    ['waiting_for_budget', null, null],
    ['drift', 0, 'drift'],
  ] as const)('a %s stream with lag %s needs a person for: %s', (state, lag, expected) => {
    expect(attentionOf({ state, lagSeconds: lag }, LATE)).toBe(expected);
  });

  it('calls a stream waiting long after three missed schedules, never before five minutes', () => {
    expect(lateAfterSeconds(1_000)).toBe(300);
    expect(lateAfterSeconds(60_000)).toBe(300);
    expect(lateAfterSeconds(600_000)).toBe(1800);
  });

  it('sorts the never-synced first, then the largest lag, then by name', () => {
    const sorted = [status('b', 'x', 'failed', 5), status('a', 'x', 'failed', 50), status('c', 'x', 'failed', null), status('a', 'w', 'failed', 5)].sort(byLag);
    expect(sorted.map((s) => `${s.business}/${s.stream}`)).toEqual(['c/x', 'a/x', 'a/w', 'b/x']);
  });
});

describe('status page at scale', () => {
  it('opens on the counts by state, then only the streams that need a person, most behind first, with no chart', () => {
    const html = page(fleet());
    const counts = Object.fromEntries(
      [...html.matchAll(/data-count="([a-z_]+)"[^>]*><strong>([\d,]+)<\/strong>/g)].map((m): [string, string] => [m[1] ?? '', m[2] ?? '']),
    );
    expect(counts).toEqual({
      needs_person: '5',
      auth_failed: '1',
      failed: '1',
      drift: '1',
      gap_warning: '1',
      waiting_long: '1',
      waiting_for_budget: '2',
      syncing: '0',
      idle: '2,994',
    });
    expect(rowsOf(html)).toEqual([
      'biz-0030/voicemails auth_failed',
      'biz-0040/calls waiting_for_budget',
      'biz-0010/calls failed',
      'biz-0050/calls gap_warning',
      'biz-0020/numbers drift',
    ]);
    expect(html).toContain('No successful run for 1h 06m.</div><div class="fix">Fix: check that a `callsync run` worker is up');
    expect(html).toContain('Stopped businesses: 1');
    expect(html).toContain('<a href="business/biz-0030">biz-0030</a>');
    expect(html).not.toContain('<svg');
    expect(html.length).toBeLessThan(40_000);
  });

  it('filters by business name (any case, a part of it) and links to the matching businesses', () => {
    const html = page(fleet(), 'business=BIZ-001');
    expect(rowsOf(html)).toEqual(['biz-0010/calls failed']);
    expect(html).toContain('Businesses containing “BIZ-001”: 10');
    expect(html).toContain('<a href="business/biz-0019">biz-0019</a>');
    expect(html).toContain('value="BIZ-001"');
  });

  it('pages a long list, the links keeping the filter, and lists any state asked for', () => {
    const first = page(fleet(), 'state=idle');
    expect(rowsOf(first)).toHaveLength(STREAMS_PER_PAGE);
    expect(first).toContain('Streams 1–50 of 2,994 (page 1 of 60)');
    expect(first).toContain('<a rel="next" href="?state=idle&amp;page=2">next →</a>');
    const last = page(fleet(), 'state=idle&page=60');
    expect(rowsOf(last)).toHaveLength(2994 - 59 * STREAMS_PER_PAGE);
    expect(last).toContain('<a rel="prev" href="?state=idle&amp;page=59">');
    expect(last).not.toContain('rel="next"');
    // Past the end shows the last page rather than nothing.
    expect(rowsOf(page(fleet(), 'state=idle&page=999'))).toEqual(rowsOf(last));
    expect(rowsOf(page(fleet(), 'state=failed,drift'))).toEqual(['biz-0010/calls failed', 'biz-0020/numbers drift']);
  });

  it('says when nothing needs a person, and refuses a state it does not know', () => {
    const calm: StatusSnapshot = { generatedAt: NOW, businesses: [business('acme', [status('acme', 'calls')])] };
    expect(page(calm)).toContain('Nothing needs a person.');
    const refused = parseSummaryQuery(new URLSearchParams('state=broken'));
    expect('error' in refused && refused.error).toMatch(/^state: unknown "broken"; expected a comma-separated list of idle, /);
    expect(parseSummaryQuery(new URLSearchParams('page=0'))).toEqual({ error: 'page: expected a whole number from 1, got "0"' });
  });

  it('escapes the filter text it echoes', () => {
    const html = page(fleet(), `business=${encodeURIComponent('"><script>x</script>')}`);
    expect(html).not.toContain('<script>');
    expect(html).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
  });
});
