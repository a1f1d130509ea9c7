import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { Agent } from 'undici';
import { hubspotConfigSchema } from '../../../connectors/hubspot/config.js';
import { createHubSpotSink } from '../../../connectors/hubspot/sink.js';
import { valueBeforeTombstone } from '../../../connectors/hubspot/tombstone.js';
import { openStateStore } from '../../../connectors/state-stores/index.js';
import type { Json } from '../../../src/sink/sink.js';
import { startFakeHubSpot } from '../../fakes/hubspot/index.js';
import { voicemailRecord } from './fixtures.js';
import { breakSqliteCheckpoints } from './sqlite-file.js';
import { describeSinkConformance, type StoredRow } from './suite.js';

// HubSpot keeps calls and voicemails as Calls engagements; the suite reads them back from the
// fake portal through the record property, which holds each record as synced.
describeSinkConformance({
  name: 'hubspot',
  deliveredBeforeCommit: true,
  customTables: false,
  async create() {
    const fake = await startFakeHubSpot();
    const dir = await mkdtemp(join(tmpdir(), 'callsync-hubspot-conformance-'));
    const statePath = join(dir, 'state.db');
    const logger = pino({ level: 'silent' });
    const config = hubspotConfigSchema.parse({
      type: 'hubspot',
      token: fake.token,
      baseUrl: fake.baseUrl,
      state: { type: 'sqlite', path: statePath },
      associateContacts: false,
      recordProperty: 'callsync_record',
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
    });
    const store = await openStateStore(config.state, logger);
    const dispatcher = new Agent();
    const sink = createHubSpotSink(config, { logger, dispatcher, store });
    return {
      sink,
      readRows(table, businessId) {
        const prefix = `${businessId}:${table.stream}:`;
        const rows = fake
          .calls()
          .filter((call) => call.properties.callsync_id?.startsWith(prefix) === true)
          .map((call): StoredRow => {
            const record = JSON.parse(call.properties.callsync_record ?? '{}') as { source: string; fields: StoredRow['fields']; raw: Json };
            return { businessId, id: (call.properties.callsync_id ?? '').slice(prefix.length), source: record.source, fields: record.fields, raw: record.raw };
          });
        return Promise.resolve(rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)));
      },
      // Archived (in HubSpot's recycling bin, the unique value moved aside) and not live again as a new call.
      readDeleted(table, businessId) {
        const prefix = `${businessId}:${table.stream}:`;
        const idsOf = (calls: { properties: Record<string, string> }[]) =>
          calls
            .map((call) => valueBeforeTombstone(call.properties.callsync_id ?? ''))
            .filter((id) => id.startsWith(prefix))
            .map((id) => id.slice(prefix.length));
        const live = new Set(idsOf(fake.calls()));
        return Promise.resolve([...new Set(idsOf(fake.archivedCalls()))].filter((id) => !live.has(id)).sort());
      },
      rejectableRecord: (businessId) => ({
        record: voicemailRecord(businessId, 'v2', { created_at: 'not a date' }),
        reason: /^hubspot: Property values were not valid: .*not a date is not a valid datetime/,
      }),
      breakCheckpoints: () => breakSqliteCheckpoints(statePath),
      async cleanup() {
        await dispatcher.close();
        await fake.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});
