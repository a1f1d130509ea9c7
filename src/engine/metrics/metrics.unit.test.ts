import { describe, expect, it } from 'vitest';
import { register as globalRegistry } from 'prom-client';
import type { StreamGauges } from '../state/index.js';
import { createMetrics } from './metrics.js';

describe('callsync metrics', () => {
  it('writes each helper to its named metric with its labels', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.recordsWritten({ business: 'acme', stream: 'calls' }, 40);
    metrics.recordsWritten({ business: 'acme', stream: 'calls' }, 2);
    metrics.upstreamRequest({ business: 'acme' }, 200);
    metrics.upstreamRequest({ business: 'acme' }, 'error');
    metrics.upstreamRateLimited({ business: 'acme' });
    metrics.budgetWaited({ business: 'acme' }, 12.5);
    metrics.setLag({ business: 'acme', stream: 'calls' }, 30);
    metrics.observeJobDuration({ stream: 'calls' }, 4);
    metrics.deadLettered({ business: 'acme', stream: 'voicemails' }, 2);
    metrics.sinkNoted({ business: 'acme', stream: 'calls' }, 'party_by_direction', 3);
    metrics.sinkNoted({ business: 'acme', stream: 'calls' }, 'party_by_direction', 1);
    metrics.recordsRewritten({ business: 'acme', stream: 'calls' }, 'invalid_utf8', 2);
    const text = await metrics.registry.metrics();
    expect(text).toContain('callsync_records_written_total{business="acme",stream="calls"} 42');
    expect(text).toContain('callsync_upstream_requests_total{business="acme",status="200"} 1');
    expect(text).toContain('callsync_upstream_requests_total{business="acme",status="error"} 1');
    expect(text).toContain('callsync_upstream_rate_limited_total{business="acme"} 1');
    expect(text).toContain('callsync_budget_wait_seconds_total{business="acme"} 12.5');
    expect(text).toContain('callsync_lag_seconds{business="acme",stream="calls"} 30');
    expect(text).toContain('callsync_job_duration_seconds_bucket{le="5",stream="calls"} 1');
    expect(text).toContain('callsync_job_duration_seconds_bucket{le="2",stream="calls"} 0');
    expect(text).toContain('callsync_dead_letters_total{business="acme",stream="voicemails"} 2');
    expect(text).toContain('callsync_sink_notes_total{business="acme",stream="calls",code="party_by_direction"} 4');
    expect(text).toContain('callsync_records_rewritten_total{business="acme",stream="calls",reason="invalid_utf8"} 2');
    expect(text).toContain('# TYPE callsync_lag_seconds gauge');
    metrics.setLag({ business: 'acme', stream: 'calls' }, null);
    expect(await metrics.registry.metrics()).not.toContain('callsync_lag_seconds{');
  });

  it('counts webhook deliveries by outcome, never under a name no business has, and says which path delivered', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.webhookDelivery('acme', 'accepted');
    metrics.webhookDelivery(undefined, 'unknown_business');
    metrics.syncEnded('webhook', 3, 0.4);
    metrics.syncEnded('schedule', 0, 42);
    const text = await metrics.registry.metrics();
    expect(text).toContain('callsync_webhook_deliveries_total{business="acme",outcome="accepted"} 1');
    expect(text).toContain('callsync_webhook_deliveries_total{business="-",outcome="unknown_business"} 1');
    expect(text).toContain('callsync_sync_runs_total{trigger="webhook"} 1');
    expect(text).toContain('callsync_sync_runs_total{trigger="schedule"} 1');
    expect(text).toContain('callsync_sync_records_written_total{trigger="webhook"} 3');
    expect(text).not.toContain('callsync_sync_records_written_total{trigger="schedule"}');
    expect(text).toContain('callsync_trigger_to_synced_seconds_bucket{le="0.5",trigger="webhook"} 1');
    expect(text).toContain('callsync_trigger_to_synced_seconds_bucket{le="30",trigger="schedule"} 0');
    const summed = createMetrics({ processMetrics: false, perBusiness: false });
    summed.webhookDelivery('acme', 'accepted');
    expect(await summed.registry.metrics()).toContain('callsync_webhook_deliveries_total{outcome="accepted"} 1');
  });

  it('uses a registry of its own: two instances do not collide and the global registry stays empty', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.recordsWritten({ business: 'acme', stream: 'calls' }, 1);
    expect(await b.registry.metrics()).not.toContain('callsync_records_written_total{');
    expect(await a.registry.metrics()).toContain('process_cpu_user_seconds_total');
    expect(await globalRegistry.metrics()).not.toContain('callsync_');
  });

  it('refreshes the lag and difference gauges from the status source at each scrape, keeping old values if it fails', async () => {
    let readings: StreamGauges[] = [
      { business: 'acme', stream: 'calls', state: 'idle', lagSeconds: 10, difference: -3 },
      { business: 'acme', stream: 'numbers', state: 'idle', lagSeconds: null, difference: null },
    ];
    let fail = false;
    const metrics = createMetrics({
      processMetrics: false,
      statusCacheMs: 0,
      statusSource: () => (fail ? Promise.reject(new Error('redis down')) : Promise.resolve(readings)),
    });
    const first = await metrics.registry.metrics();
    expect(first).toContain('callsync_lag_seconds{business="acme",stream="calls"} 10');
    expect(first).toContain('callsync_reconcile_difference{business="acme",stream="calls"} -3');
    readings = [{ business: 'acme', stream: 'calls', state: 'idle', lagSeconds: 70, difference: 0 }];
    const second = await metrics.registry.metrics();
    expect(second).toContain('callsync_lag_seconds{business="acme",stream="calls"} 70');
    expect(second).toContain('callsync_reconcile_difference{business="acme",stream="calls"} 0');
    fail = true;
    const text = await metrics.registry.metrics();
    expect(text).toContain('callsync_lag_seconds{business="acme",stream="calls"} 70');
    expect(text).toContain('callsync_lag_source_errors_total 1');
    expect(text).not.toContain('stream="numbers"');
  });

  it('reads the status source at most once per cache period, however often it is scraped, aging the lag meanwhile', async () => {
    let reads = 0;
    let nowMs = 1_000_000;
    let fail = false;
    const metrics = createMetrics({
      processMetrics: false,
      now: () => nowMs,
      statusSource: () => {
        reads += 1;
        return fail
          ? Promise.reject(new Error('redis down'))
          : Promise.resolve([{ business: 'acme', stream: 'calls', state: 'idle' as const, lagSeconds: 10, difference: 0 }]);
      },
    });
    await Promise.all([metrics.registry.metrics(), metrics.registry.metrics()]);
    nowMs += 14_000;
    const later = await metrics.registry.metrics();
    expect(reads).toBe(1);
    expect(later).toContain('callsync_lag_seconds{business="acme",stream="calls"} 24');
    nowMs += 1_000;
    fail = true;
    await metrics.registry.metrics();
    await metrics.registry.metrics();
    // A failed read is not cached: the next scrape asks again.
    expect(reads).toBe(3);
  });

  it('always exports the streams in each state and the largest lag, read from the status source', async () => {
    const readings: StreamGauges[] = [
      { business: 'acme', stream: 'calls', state: 'failed', lagSeconds: 400, difference: null },
      { business: 'acme', stream: 'numbers', state: 'idle', lagSeconds: 30, difference: null },
      { business: 'bolt', stream: 'calls', state: 'failed', lagSeconds: null, difference: null },
    ];
    for (const perBusiness of [true, false]) {
      const metrics = createMetrics({ processMetrics: false, perBusiness, statusSource: () => Promise.resolve(readings) });
      const text = await metrics.registry.metrics();
      expect(text).toContain('callsync_streams{state="failed"} 2');
      expect(text).toContain('callsync_streams{state="idle"} 1');
      expect(text).toContain('callsync_streams{state="drift"} 0');
      expect(text).toContain('callsync_lag_max_seconds 400');
    }
  });

  it('with perBusiness off, sums the counters over businesses and leaves out the per-stream gauges', async () => {
    const metrics = createMetrics({
      processMetrics: false,
      perBusiness: false,
      statusSource: () => Promise.resolve([{ business: 'acme', stream: 'calls', state: 'idle' as const, lagSeconds: 10, difference: 2 }]),
    });
    metrics.recordsWritten({ business: 'acme', stream: 'calls' }, 40);
    metrics.recordsWritten({ business: 'bolt', stream: 'calls' }, 2);
    metrics.upstreamRequest({ business: 'acme' }, 200);
    metrics.upstreamRequest({ business: 'bolt' }, 200);
    metrics.upstreamRateLimited({ business: 'acme' });
    metrics.budgetWaited({ business: 'bolt' }, 1.5);
    metrics.deadLettered({ business: 'acme', stream: 'calls' }, 3);
    metrics.setLag({ business: 'acme', stream: 'calls' }, 30);
    const text = await metrics.registry.metrics();
    expect(text).toContain('callsync_records_written_total{stream="calls"} 42');
    expect(text).toContain('callsync_upstream_requests_total{status="200"} 2');
    expect(text).toContain('callsync_upstream_rate_limited_total 1');
    expect(text).toContain('callsync_budget_wait_seconds_total 1.5');
    expect(text).toContain('callsync_dead_letters_total{stream="calls"} 3');
    expect(text).not.toContain('business=');
    expect(text).not.toContain('callsync_lag_seconds');
    expect(text).not.toContain('callsync_reconcile_difference');
    expect(text).toContain('callsync_streams{state="idle"} 1');
    // A caller's mistake still shows with the label dropped.
    expect(() => metrics.upstreamRateLimited({ business: '' })).toThrow(/label business/);
  });

  it('rejects misspelled or empty labels: at compile time, and at run time for untyped callers', () => {
    const metrics = createMetrics({ processMetrics: false });
    // @ts-expect-error `stram` is not a label of callsync_records_written_total
    expect(() => metrics.recordsWritten({ business: 'acme', stram: 'calls' }, 1)).toThrow(/label stream/);
    expect(() => metrics.upstreamRateLimited({ business: '' })).toThrow(/label business/);
  });
});
