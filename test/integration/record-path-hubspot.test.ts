import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubspotConfigSchema } from '../../connectors/hubspot/config.js';
import { createHubSpotSink } from '../../connectors/hubspot/hubspot-sink.js';
import { silentLogger } from '../support/silent-logger.js';
import { startFakeHubSpot, type FakeHubSpot } from '../fakes/hubspot/index.js';
import { MemoryStateStore } from '../fakes/memory-state-store.js';
import { backfillCalls, readmePath, traceRecordPath } from './support/record-path-coverage.js';

describe('the HubSpot upsert path', () => {
  let fake: FakeHubSpot;
  beforeAll(async () => void (fake = await startFakeHubSpot()));
  afterAll(() => fake.close());

  it('crosses the files docs/architecture.md lists, and no more', async () => {
    // The path ends at HubSpot's batch upsert answer: the state store that then keeps the
    // acknowledged copy and the checkpoint is test code here (not counted), and contact
    // association, which follows the answer, is off.
    const sinkConfig = hubspotConfigSchema.parse({ type: 'hubspot', token: fake.token, baseUrl: fake.baseUrl, associateContacts: false });
    const traced = await traceRecordPath((upstream) =>
      backfillCalls(upstream, sinkConfig, (config) =>
        config.type === 'hubspot'
          ? Promise.resolve(createHubSpotSink(config, { logger: silentLogger(), store: new MemoryStateStore() }))
          : Promise.reject(new Error(`expected a hubspot sink, got ${config.type}`)),
      ),
    );
    // Every sink's upstream side is the SQLite list but its store, so a change there is listed once.
    const shared = readmePath('record-path').filter((file) => !/^connectors\/(sql|sqlite)\//.test(file));
    const own = readmePath('hubspot-path');
    expect(traced).toContain('connectors/hubspot/upsert.ts');
    expect(traced).toEqual([...shared, ...own].sort());
    const counts = /runs code in (\d+) files: the (\d+) of the list above[\s\S]*?then these (\d+),/.exec(
      readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8'),
    );
    expect(counts?.slice(1).map(Number)).toEqual([traced.length, shared.length, own.length]);
  });
});
