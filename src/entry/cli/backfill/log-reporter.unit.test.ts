import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { waitCappedMessage } from '../../../source/upstream/index.js';
import { createLogReporter } from './log-reporter.js';

/** The reporter over a logger whose lines are collected, parsed, without time, pid and host. */
function collected(): { lines: Array<Record<string, unknown>>; reporter: ReturnType<typeof createLogReporter> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ base: undefined, timestamp: false }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { lines, reporter: createLogReporter(logger) };
}

describe('backfill log reporter', () => {
  it('writes one line per event a person reads: stream start, page, waits, warnings, the business end', () => {
    const { lines, reporter } = collected();
    reporter.event('acme', { type: 'stream-start', businessId: 'acme', stream: 'calls' });
    reporter.event('acme', { type: 'response', api: 'v1', path: '/calls', status: 200, ms: 12 });
    reporter.event('acme', { type: 'page-stored', page: { businessId: 'acme', stream: 'calls', records: 100, written: 99, deadLettered: 1, total: 300 } });
    reporter.event('acme', { type: 'budget-wait', bucketKey: 'acme', waitMs: 1500 });
    reporter.event('acme', { type: 'retry', kind: 'transient', reason: 'HTTP 503', waitMs: 200, attempt: 1 });
    reporter.event('acme', { type: 'warning', businessId: 'acme', stream: 'calls', message: 'the server caps the page at 50' });
    reporter.event('acme', { type: 'wait-capped', api: 'v1', path: '/calls', source: 'Retry-After', askedMs: 600_000, waitMs: 60_000 });
    reporter.event('acme', { type: 'business-end', outcome: { business: 'acme', streams: [] } });
    const failure = { scope: 'business', kind: 'auth', message: 'GET /calls: 401 Invalid API key' } as const;
    reporter.event('globex', { type: 'business-end', outcome: { business: 'globex', streams: [{ stream: 'calls', failure }], failure } });
    expect(lines).toEqual([
      { level: 30, business: 'acme', stream: 'calls', msg: 'stream started' },
      { level: 30, businessId: 'acme', stream: 'calls', records: 100, written: 99, deadLettered: 1, total: 300, msg: 'page stored' },
      { level: 30, business: 'acme', waitMs: 1500, reason: 'budget', msg: 'waiting' },
      { level: 30, business: 'acme', waitMs: 200, reason: 'HTTP 503', msg: 'waiting' },
      { level: 40, business: 'acme', stream: 'calls', msg: 'the server caps the page at 50' },
      {
        level: 40,
        business: 'acme',
        stream: 'calls',
        msg: waitCappedMessage({ type: 'wait-capped', api: 'v1', path: '/calls', source: 'Retry-After', askedMs: 600_000, waitMs: 60_000 }),
      },
      { level: 30, business: 'acme', msg: 'business done' },
      { level: 50, business: 'globex', kind: 'auth', msg: 'GET /calls: 401 Invalid API key' },
    ]);
  });
});
