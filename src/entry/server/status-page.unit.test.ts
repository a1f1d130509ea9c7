import { describe, expect, it } from 'vitest';
import { STREAM_STATES, type StreamState, type StreamStatus } from '../../engine/state/index.js';
import type { StatusSnapshot } from '../../engine/state/index.js';
import { renderBusinessPage } from './business-page.js';
import { escapeHtml } from './html.js';
import { BUSY, NOW, streamStatus } from '../../../test/support/status-fixtures.js';

function status(overrides: Partial<StreamStatus> = {}): StreamStatus {
  return streamStatus({
    lastSuccessAt: '2024-05-01T11:57:00.000Z',
    lastRunAt: '2024-05-01T11:56:50.000Z',
    lagSeconds: 180,
    ...BUSY,
    ...overrides,
  });
}

function snapshot(streams: StreamStatus[], failed: string | null = null, name = 'acme'): StatusSnapshot {
  const activity = Array.from({ length: 60 }, (_, i) => ({ minute: `m${i}`, records: i === 59 ? 40 : i === 58 ? 10 : 0 }));
  return { generatedAt: NOW, businesses: [{ name, failed, streams, activity }] };
}

/** A business's own page, as the server renders it for the one business of `view`. */
function businessPage(view: StatusSnapshot, options: { refreshSeconds?: number } = {}): string {
  const business = view.businesses[0];
  if (business === undefined) throw new Error('no business');
  return renderBusinessPage(business, view.generatedAt, { ...options, lateAfterSeconds: 300 });
}

describe("a business's own page", () => {
  it('shows the last webhook delivery when run receives webhooks, and nothing about webhooks otherwise', () => {
    const business = snapshot([status()]).businesses[0]!;
    const page = (lastWebhook?: { at: string; outcome: string } | null): string => renderBusinessPage(business, NOW, { lateAfterSeconds: 300, lastWebhook });
    expect(page({ at: '2024-05-01T11:59:57.000Z', outcome: 'unknown_business' })).toContain('Last webhook: unknown business, 3s ago.');
    expect(page(null)).toContain('Last webhook: none received yet');
    expect(page()).not.toContain('webhook');
  });

  it('renders one row per business × stream with data attributes and the stream values', () => {
    const waiting = status({ stream: 'voicemails', state: 'waiting_for_budget', lagSeconds: null, lastSuccessAt: null });
    const html = businessPage(snapshot([status(), waiting]));
    const rows = html.match(/<tr data-business="acme" data-stream="[^"]+">.*?<\/tr>/g) ?? [];
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain('data-state="idle"');
    expect(rows[0]).toContain('3m ago');
    expect(rows[0]).toContain('1,234,567');
    expect(rows[0]).toContain('12/60');
    expect(rows[0]).toContain('>3<');
    expect(rows[1]).toContain('data-state="waiting_for_budget"');
    expect(rows[1]).toContain('>waiting for budget<');
    expect(rows[1]).toContain('<td>never</td>');
  });

  it.each(STREAM_STATES.map((s) => [s]))('gives state %s a readable label and its own colour class', (state: StreamState) => {
    const html = businessPage(snapshot([status({ state })]));
    const cell = /<td class="state state-([a-z_]+)" data-state="([a-z_]+)"[^>]*>([^<]+)<\/td>/.exec(html);
    expect(cell?.slice(1)).toEqual([state, state, state.replaceAll('_', ' ')]);
    expect(html).toMatch(new RegExp(`\\.state-${state}\\{background:#[0-9a-f]{6}`));
  });

  it('escapes every stored value, so a hostile name or error cannot inject markup', () => {
    const evil = '<script>alert("x")</script>';
    const html = businessPage(
      snapshot([status({ business: evil, stream: `"><img src=x onerror=1>`, lastError: evil, warning: `it's <b>` })], `stopped by ${evil}`, evil),
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain(escapeHtml(evil));
    expect(html).toContain(`data-business="${escapeHtml(evil)}"`);
    expect(html).toContain('it&#39;s &lt;b&gt;');
  });

  it('shows a stopped business, its chart of the last hour and a self-refresh without script', () => {
    const html = businessPage(snapshot([status()], 'upstream 401: invalid API key'), { refreshSeconds: 10 });
    expect(html).toContain(
      '<p class="business-failed" role="alert">Stopped: upstream 401: invalid API key. Fix: fix the key (apiKey, session or v2Token of business acme), then `callsync resume acme`</p>',
    );
    expect(html).toContain('<meta http-equiv="refresh" content="10">');
    expect(html.match(/<rect /g)).toHaveLength(60);
    expect(html).toMatch(/<rect x="[\d.]+" y="0" width="[\d.]+" height="48">/);
    expect(html).toContain('50 total, peak 40');
    expect(html).not.toMatch(/<script|src=|href="http/);
  });

  it('gives each state needing a person its fix, the budget its window reset, and the chart a time axis', () => {
    const minutes = Array.from({ length: 60 }, (_, i) => ({ minute: `2024-05-01T11:${String(i).padStart(2, '0')}Z`, records: i }));
    const html = businessPage({
      generatedAt: NOW,
      businesses: [
        { name: 'acme', failed: null, activity: minutes, streams: [status({ state: 'failed', lastError: 'HTTP 500' }), status({ stream: 'numbers' })] },
      ],
    });
    const rows = html.split('<tr data-business=').slice(1);
    expect(rows[0]).toContain(
      '<div class="fix">Fix: read the last error; the next scheduled run retries (`callsync backfill --business acme --stream calls` runs it now)</div>',
    );
    expect(rows[1]).not.toContain('class="fix"');
    expect(rows[0]).toContain('>12/60, resets 12:01:00 UTC<');
    const ticks = [...html.matchAll(/<text [^>]*class="tick">([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(ticks).toEqual(['11:00', '11:29', '11:59']);
  });

  it('says so when no stream has reported yet', () => {
    expect(businessPage(snapshot([], 'stopped'))).toContain('No stream has reported yet');
  });
});

describe('escapeHtml', () => {
  it('escapes the five characters that matter in content and attributes', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
