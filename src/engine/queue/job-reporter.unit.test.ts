import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMetrics } from '../metrics/index.js';
import type { StatusPatch } from '../state/index.js';
import { JobReporter } from './job-reporter.js';

describe('JobReporter', () => {
  it('turns the one event union into metrics and status: requests, stored pages, warnings', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const writes: StatusPatch[] = [];
    const statusStore = {
      write: (_business: string, _stream: string, patch: StatusPatch) => Promise.resolve(void writes.push(patch)),
      recordActivity: () => Promise.resolve(),
    };
    const reporter = new JobReporter({ business: 'acme', stream: 'calls', metrics, statusStore, logger: pino({ level: 'silent' }) });
    reporter.event({ type: 'stream-start', businessId: 'acme', stream: 'calls' });
    reporter.event({ type: 'response', api: 'v1', path: '/calls', status: 429, ms: 5 });
    reporter.event({ type: 'response', api: 'v1', path: '/calls', status: 200, ms: 5 });
    reporter.event({ type: 'page-stored', page: { businessId: 'acme', stream: 'calls', records: 3, written: 2, deadLettered: 1, total: 40 } });
    reporter.event({ type: 'warning', businessId: 'acme', stream: 'calls', message: 'possible gap' });
    reporter.event({ type: 'warning', businessId: 'acme', stream: 'calls', message: 'a later one' });
    await reporter.flush();

    expect(reporter.lastTotal).toBe(40);
    expect(reporter.warning).toBe('possible gap');
    // The page's counters ride on the first status write after them.
    expect(writes).toEqual([{ warning: 'possible gap', increment: { pages: 1, recordsSynced: 2, deadLetters: 1 } }, { warning: 'a later one' }]);
    const text = await metrics.registry.metrics();
    expect(text).toContain('callsync_upstream_requests_total{business="acme",status="429"} 1');
    expect(text).toContain('callsync_upstream_rate_limited_total{business="acme"} 1');
    expect(text).toContain('callsync_records_written_total{business="acme",stream="calls"} 2');
    expect(text).toContain('callsync_dead_letters_total{business="acme",stream="calls"} 1');
  });
});
