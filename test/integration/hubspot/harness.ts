import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { Agent } from 'undici';
import { hubspotConfigSchema, type HubSpotConfig } from '../../../connectors/hubspot/config.js';
import { createHubSpotSink } from '../../../connectors/hubspot/hubspot-sink.js';
import { openSqlStore } from '../../../connectors/sql/open-sql-store.js';
import type { ColumnValue, Sink, SyncRecord } from '../../../src/sink.js';
import { startFakeHubSpot, type FakeHubSpot, type FakeHubSpotOptions } from '../../fakes/hubspot/index.js';

export interface HubSpotTarget {
  readonly fake: FakeHubSpot;
  readonly sink: Sink;
  /** Every log line the sink wrote, as text. */
  readonly logs: string[];
  /** A new sink over the same state file and portal, as a re-run in a new process would open it; closed with the target. */
  reopen(): Promise<Sink>;
  close(): Promise<void>;
}

/** A HubSpot sink (own sqlite state file, own undici Agent) against a fresh fake portal. */
export async function startTarget(
  fakeOptions: FakeHubSpotOptions = {},
  config: Partial<Omit<HubSpotConfig, 'type' | 'baseUrl' | 'state'>> = {},
): Promise<HubSpotTarget> {
  const fake = await startFakeHubSpot({ limits: { intervalMs: 300 }, ...fakeOptions });
  const dir = await mkdtemp(join(tmpdir(), 'callsync-hubspot-'));
  const { logger, logs } = capturingLogger();
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
  const opened: { sink: Sink; dispatcher: Agent }[] = [];
  const open = async (): Promise<Sink> => {
    const store = await openSqlStore(parsed.state, logger);
    const dispatcher = new Agent();
    const sink = createHubSpotSink(parsed, { logger, dispatcher, store });
    opened.push({ sink, dispatcher });
    return sink;
  };
  const sink = await open();
  return {
    fake,
    sink,
    logs,
    reopen: open,
    async close() {
      for (const { sink: each, dispatcher } of opened) {
        await each.close();
        await dispatcher.close();
      }
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function capturingLogger(): { logger: Logger; logs: string[] } {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), logs };
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
