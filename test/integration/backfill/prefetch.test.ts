import diagnostics from 'node:diagnostics_channel';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSink } from '../../../connectors/registry.js';
import { createLogReporter } from '../../../src/entry/cli/backfill/log-reporter.js';
import { runBackfill } from '../../../src/entry/cli/backfill/run-backfill.js';
import type { Sink } from '../../../src/sink/sink.js';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { planBusinesses } from '../../../src/engine/sync/plan-businesses.js';
import { testConfig } from '../support/backfill-harness.js';

/** A sink whose writes note when they begin, in the same list as the requests undici sends. */
function noting(sink: Sink, events: string[]): Sink {
  return {
    capabilities: sink.capabilities,
    checkpoints: sink.checkpoints,
    deadLetters: sink.deadLetters,
    records: sink.records,
    prepare: (tables) => sink.prepare(tables),
    ping: () => sink.ping(),
    close: () => sink.close(),
    write: (batch, position) => {
      events.push(`write ${batch.records.length}`);
      return sink.write(batch, position);
    },
  };
}

describe('backfill: the next page is requested while this one is stored', () => {
  let simulator: Simulator;

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 1, calls: 2_000, voicemails: 0, numbers: 0, seed: 11, rateLimit: false });
  });

  afterAll(async () => {
    await simulator.close();
  });

  it('sends the request for page n + 1 before page n is written', async () => {
    const events: string[] = [];
    const sent = (): void => void events.push('request sent');
    const channel = diagnostics.channel('undici:client:sendHeaders');
    channel.subscribe(sent);
    const databasePath = join(mkdtempSync(join(tmpdir(), 'callsync-prefetch-')), 'mirror.db');
    const config = testConfig(simulator, databasePath, { streams: ['calls'], pageSize: 500, rateLimit: false, concurrency: 1, revisit: false });
    const logger = pino({ level: 'silent' });
    const sink = await createSink(config.sink, { logger });
    try {
      await runBackfill({ config, plans: planBusinesses(config), sink: noting(sink, events), reporter: createLogReporter(logger) });
    } finally {
      channel.unsubscribe(sent);
      await sink.close();
    }
    // Four pages of 500: each write but the last comes after the request for the page that follows
    // (undici sends from a setImmediate; a write in the same turn used to hold that request back).
    const writes = events.map((event, index) => ({ event, index })).filter(({ event }) => event === 'write 500');
    expect(writes).toHaveLength(4);
    for (const { index } of writes.slice(0, -1)) {
      const requestsBefore = events.slice(0, index).filter((event) => event === 'request sent').length;
      const writesBefore = events.slice(0, index).filter((event) => event.startsWith('write')).length;
      expect(requestsBefore, events.join(', ')).toBe(writesBefore + 2);
    }
  });
});
