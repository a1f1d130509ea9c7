import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hubspotConfigSchema, type HubSpotConfig } from '../../../connectors/hubspot/config.js';
import { createHubSpotSink } from '../../../connectors/hubspot/sink.js';
import type { ColumnValue, SyncRecord } from '../../../src/sink/sink.js';
import { openCrmSink, type CrmSinkUnderTest } from '../support/crm-sink.js';
import { startFakeHubSpot, type FakeHubSpot, type FakeHubSpotOptions } from '../../fakes/hubspot/index.js';

export interface HubSpotTarget extends CrmSinkUnderTest {
  readonly fake: FakeHubSpot;
}

/** A HubSpot sink (own sqlite state file, own undici Agent) against a fresh fake portal. */
export async function startTarget(
  fakeOptions: FakeHubSpotOptions = {},
  config: Partial<Omit<HubSpotConfig, 'type' | 'baseUrl' | 'state'>> = {},
): Promise<HubSpotTarget> {
  const fake = await startFakeHubSpot({ limits: { intervalMs: 300 }, ...fakeOptions });
  const dir = await mkdtemp(join(tmpdir(), 'callsync-hubspot-'));
  const parsed = hubspotConfigSchema.parse({
    type: 'hubspot',
    token: fake.token,
    baseUrl: fake.baseUrl,
    state: { type: 'sqlite', path: join(dir, 'state.db') },
    retry: { maxAttempts: 5, baseDelayMs: 20, maxDelayMs: 200 },
    // The business's own number in the records below, so the customer is decided from data.
    trackedNumbers: [TRACKED_NUMBER],
    ...config,
  });
  const opened = await openCrmSink(
    parsed.state,
    (deps) => createHubSpotSink(parsed, deps),
    async () => {
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  );
  return { fake, ...opened };
}

/** The tracked number `inboundCall` and `voicemail` are received on. */
export const TRACKED_NUMBER = '+15550100001';

export function inboundCall(businessId: string, id: string, overrides: Record<string, ColumnValue> = {}): SyncRecord {
  const fields: Record<string, ColumnValue> = {
    to_number: TRACKED_NUMBER,
    from_number: '+14155550123',
    direction: 'inbound',
    recording_url: `https://calls.example.com/acct/recordings/main/${id}.wav`,
    transcription_text: `hello from ${id}`,
    created_at: '2024-03-01T10:15:00Z',
    ...overrides,
  };
  return { businessId, id, source: 'v1', fields, raw: { id, ...fields } };
}

export function voicemail(businessId: string, id: string, overrides: Record<string, ColumnValue> = {}): SyncRecord {
  const fields: Record<string, ColumnValue> = {
    to_number: TRACKED_NUMBER,
    from_number: '+14155550199',
    transcription_text: 'please call back',
    transcription_summary: 'wants a call back',
    recording_type: 'voicemail',
    recording_url: 'http://calls.example.com/acct/recordings/ivr/1.wav',
    api_recording_url: `https://telephony.example.net/rec/${id}`,
    duration_seconds: 42,
    created_at: '2024-03-02T08:00:05Z',
    ...overrides,
  };
  return { businessId, id, source: 'v2', fields, raw: { uuid: Number(id), ...fields } };
}
