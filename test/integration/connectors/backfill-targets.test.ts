import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { startFakeHubSpot } from '../../fakes/hubspot/index.js';
import { WebhookReceiver } from '../../fakes/webhook-receiver.js';
import { backfillOnce, testConfig, total } from '../support/backfill-harness.js';
import { postgresUrl, uniqueName } from '../services.js';

let simulator: Simulator;
let directory: string;

beforeAll(async () => {
  simulator = await startSimulator({ businesses: 2, calls: 1_500, voicemails: 80, numbers: 3, seed: 21, rateLimit: false });
  directory = mkdtempSync(join(tmpdir(), 'callsync-targets-'));
});

afterAll(async () => {
  await simulator.close();
});

const noLimit = { rateLimit: false } as const;

function truthCount(stream: 'calls' | 'voicemails' | 'numbers'): number {
  return simulator.businesses.reduce((sum, business) => sum + simulator.truth(business.name)[stream].length, 0);
}

describe('callsync backfill into each connector against the simulator', () => {
  it('Postgres: mirrors every record with raw as jsonb, and a re-run writes nothing', async () => {
    const schema = uniqueName('targets');
    const config = testConfig(simulator, '', { ...noLimit, sink: { type: 'postgres', url: postgresUrl, schema } });
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      const first = await backfillOnce(config);
      expect(total(first, 'written')).toBe(truthCount('calls') + truthCount('voicemails') + truthCount('numbers'));
      const truth = simulator.truth('biz-2').calls[700];
      const row = await client.query<{ raw: unknown; from_number: string; created_at: Date }>(
        `select raw, from_number, created_at from "${schema}".calls where business_id = 'biz-2' and id = $1`,
        [truth?.id],
      );
      expect(row.rows[0]?.raw).toEqual(truth?.raw);
      expect(row.rows[0]?.from_number).toBe(truth?.expected.from_number);
      expect(row.rows[0]?.created_at.toISOString().replace('.000', '')).toBe(truth?.expected.created_at);
      const second = await backfillOnce(config);
      expect(total(second, 'written')).toBe(0);
    } finally {
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
  });

  it('HubSpot: one Calls engagement per call and voicemail, none added by a re-run', async () => {
    const hubspot = await startFakeHubSpot();
    try {
      const sink = {
        type: 'hubspot',
        token: hubspot.token,
        baseUrl: hubspot.baseUrl,
        associateContacts: false,
        state: { type: 'sqlite', path: join(directory, 'hubspot-state.db') },
      };
      const config = testConfig(simulator, '', { ...noLimit, streams: ['calls', 'voicemails'], sink });
      const first = await backfillOnce(config);
      expect(first.outcomes.flatMap((o) => o.streams).every((s) => s.failure === undefined)).toBe(true);
      expect(hubspot.calls()).toHaveLength(truthCount('calls') + truthCount('voicemails'));
      const second = await backfillOnce(config);
      expect(total(second, 'written')).toBe(0);
      expect(hubspot.calls()).toHaveLength(truthCount('calls') + truthCount('voicemails'));
    } finally {
      await hubspot.close();
    }
  });

  it('webhook: every record delivered signed, nothing posted by a re-run', async () => {
    const secret = 'whsec_0123456789abcdef0123';
    const receiver = await WebhookReceiver.start(secret);
    try {
      const sink = { type: 'webhook', url: receiver.url, secret, state: { type: 'sqlite', path: join(directory, 'webhook-state.db') } };
      const config = testConfig(simulator, '', { ...noLimit, sink });
      await backfillOnce(config);
      const delivered = simulator.businesses.reduce((sum, business) => sum + receiver.rows(business.name, 'calls').length, 0);
      expect(delivered).toBe(truthCount('calls'));
      expect(receiver.requests.every((request) => request.verified)).toBe(true);
      const keysSeen = new Set(receiver.requests.map((request) => request.headers['idempotency-key']));
      const posts = receiver.requests.length;
      const second = await backfillOnce(config);
      expect(total(second, 'written')).toBe(0);
      // Only the full-refresh numbers are sent again, under the Idempotency-Key the receiver already has.
      const again = receiver.requests.slice(posts);
      expect(again.length).toBeLessThanOrEqual(simulator.businesses.length);
      expect(again.every((request) => keysSeen.has(request.headers['idempotency-key']))).toBe(true);
    } finally {
      await receiver.close();
    }
  });
});
