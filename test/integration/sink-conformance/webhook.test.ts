import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { webhookConfigSchema, webhookSinkFactory } from '../../../connectors/webhook/index.js';
import type { ColumnValue, Json } from '../../../src/sink/sink.js';
import { WebhookReceiver } from '../../fakes/webhook-receiver.js';
import { voicemailRecord } from './fixtures.js';
import { breakSqliteCheckpoints } from './sqlite-file.js';
import { describeSinkConformance } from './suite.js';

const secret = 'whsec_conformance_0123456789';

describeSinkConformance({
  name: 'webhook',
  deliveredBeforeCommit: true,
  targetCountsReplays: true,
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'callsync-webhook-sink-'));
    const statePath = join(dir, 'state', 'webhook-state.db');
    const receiver = await WebhookReceiver.start(secret);
    const config = webhookConfigSchema.parse({
      type: 'webhook',
      url: receiver.url,
      secret,
      state: { type: 'sqlite', path: statePath },
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
    const sink = await webhookSinkFactory.create(config, { logger: pino({ level: 'silent' }) });
    return {
      sink,
      // What the receiver stored, deduplicated by Idempotency-Key and record id as a real receiver does.
      readRows: (table, businessId) =>
        Promise.resolve(
          receiver.rows(businessId, table.stream).map((record) => ({
            businessId,
            id: record.id,
            source: String(record.source),
            fields: Object.fromEntries(table.columns.map((column) => [column.name, (record[column.name] ?? null) as ColumnValue])),
            raw: record.raw as Json,
            syncedAt: String(record.synced_at),
          })),
        ),
      readDeleted: (table, businessId) => Promise.resolve(receiver.deleted(businessId, table.stream)),
      // A receiver refuses whole batches, never one record (webhook.test.ts covers that); the record
      // refused here is one the sink itself cannot store.
      rejectableRecord: (businessId) => ({
        record: { ...voicemailRecord(businessId, 'v2'), raw: { uuid: 2, transcription: 'cut \ud83d off' } },
        reason: /^raw\.transcription: lone surrogate/,
      }),
      // The receiver acknowledges, then the state store fails to take the checkpoint.
      breakCheckpoints: () => breakSqliteCheckpoints(statePath),
      cleanup: async () => {
        await receiver.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
});
