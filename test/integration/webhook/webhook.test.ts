import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebhookSink, webhookConfigSchema, webhookSinkFactory } from '../../../connectors/webhook/index.js';
import type { Batch, Checkpoint, JsonObject, Sink, SyncRecord } from '../../../src/sink/sink.js';
import { WebhookReceiver } from '../../fakes/webhook-receiver.js';
import { postgresUrl, uniqueName } from '../services.js';

const secret = 'whsec_integration_0123456789';
const table = { stream: 'calls', table: 'calls', columns: [{ name: 'direction', type: 'text' as const }] };
const call = (id: string, note = `call ${id}`): SyncRecord => ({
  businessId: 'acme',
  id,
  source: 'v1',
  fields: { direction: 'inbound' },
  raw: { id, note },
});
const batchOf = (records: SyncRecord[]): Batch => ({ businessId: 'acme', table, records, deadLetters: [] });
const at = (cursor: string): JsonObject => ({ cursor });
const checkpointAt = (cursor: string, recordsSynced = 0): Checkpoint => ({ businessId: 'acme', stream: 'calls', position: at(cursor), recordsSynced });

let dir: string;
let receiver: WebhookReceiver;
let sinks: Sink[];
let waits: number[];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'callsync-webhook-'));
  receiver = await WebhookReceiver.start(secret);
  sinks = [];
  waits = [];
});

afterEach(async () => {
  await Promise.all(sinks.map((sink) => sink.close()));
  await receiver.close();
  await rm(dir, { recursive: true, force: true });
});

/** A webhook sink over real HTTP with a real SQLite state store; sleeps are recorded and really taken. */
async function openSink(overrides: Record<string, unknown> = {}): Promise<Sink> {
  const config = webhookConfigSchema.parse({
    type: 'webhook',
    url: receiver.url,
    secret,
    state: { type: 'sqlite', path: join(dir, 'state', 'webhook-state.db') },
    retry: { maxAttempts: 4, baseDelayMs: 5, maxDelayMs: 2000 },
    ...overrides,
  });
  const sink = await createWebhookSink(
    config,
    { logger: pino({ level: 'silent' }) },
    {
      sleep: async (ms) => {
        waits.push(ms);
        await delay(ms);
      },
    },
  );
  sinks.push(sink);
  return sink;
}

describe('webhook sink against a real receiver', () => {
  it('delivers a signed batch the documented verifier accepts, then stores the checkpoint', async () => {
    const sink = await openSink();
    const result = await sink.write(batchOf([call('c1'), call('c2')]), at('p1'));

    expect(result).toEqual({ written: 2, unchanged: 0, deadLettered: 0 });
    const [request, ...others] = receiver.requests;
    expect(others).toEqual([]);
    expect(request).toMatchObject({ method: 'POST', verified: true, status: 200 });
    expect(request?.headers['content-type']).toBe('application/json');
    expect(Math.abs(Number(request?.headers['x-callsync-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    expect(receiver.rows('acme', 'calls')).toMatchObject([
      { id: 'c1', source: 'v1', direction: 'inbound', raw: { id: 'c1', note: 'call c1' } },
      { id: 'c2', source: 'v1', direction: 'inbound', raw: { id: 'c2', note: 'call c2' } },
    ]);
    expect(await sink.checkpoints.load('acme', 'calls')).toEqual(checkpointAt('p1', 2));
  });

  it('works through the registry factory with its own keep-alive agent', async () => {
    const config = webhookConfigSchema.parse({ type: 'webhook', url: receiver.url, secret, state: { type: 'sqlite', path: join(dir, 'f.db') } });
    const sink = await webhookSinkFactory.create(config, { logger: pino({ level: 'silent' }) });
    sinks.push(sink);
    await sink.ping();
    expect((await sink.write(batchOf([call('c1')]), at('p1'))).written).toBe(1);
    expect(receiver.requests.map((request) => request.method)).toEqual(['HEAD', 'POST']);
  });

  it('ping: any answer to HEAD proves the receiver is there, a 503 included, without waiting', async () => {
    receiver.respondNextToAny({ status: 503, body: 'warming up' });
    const sink = await openSink();
    await sink.ping();
    expect(receiver.requests.map((request) => [request.method, request.status])).toEqual([['HEAD', 503]]);
    expect(waits).toEqual([]);
  });

  it('ping: a reset and a timeout are tried again under sink.retry, then the answer counts', async () => {
    receiver.respondNextToAny({ status: 200, reset: true }, { status: 200, delayMs: 1_500 });
    const sink = await openSink({ timeoutMs: 200 });
    await sink.ping();
    expect(receiver.requests.map((request) => [request.method, request.status])).toEqual([
      ['HEAD', 0],
      ['HEAD', 200],
      ['HEAD', 405],
    ]);
    expect(waits).toHaveLength(2);
  });

  it('ping: a receiver down through every attempt is unreachable, after sink.retry.maxAttempts', async () => {
    const sink = await openSink({ retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
    await receiver.close();
    await expect(sink.ping()).rejects.toThrow(/webhook receiver http:\/\/127\.0\.0\.1:\d+\/hooks\/callsync is unreachable/);
    expect(waits).toHaveLength(2);
    receiver = await WebhookReceiver.start(secret);
  });

  it('is refused when the receiver verifies with another secret, and keeps the records as dead letters', async () => {
    await receiver.close();
    receiver = await WebhookReceiver.start('a-different-secret-0123456789');
    const sink = await openSink();
    const result = await sink.write(batchOf([call('c1')]), at('p1'));

    expect(result).toEqual({ written: 0, unchanged: 0, deadLettered: 1 });
    expect(receiver.requests.map((request) => [request.verified, request.status])).toEqual([[false, 401]]);
    expect(receiver.rows('acme', 'calls')).toEqual([]);
    const letters = await sink.deadLetters.list({ businessId: 'acme' });
    expect(letters).toMatchObject([{ stream: 'calls', raw: { id: 'c1' }, reason: 'webhook receiver answered HTTP 401: {"error":"invalid signature"}' }]);
    expect(JSON.stringify(letters)).not.toContain(secret);
  });

  it('retries a 503 and then delivers once, under one Idempotency-Key', async () => {
    receiver.respondNext({ status: 503, body: 'maintenance' }, { status: 503 });
    const sink = await openSink();
    expect((await sink.write(batchOf([call('c1')]), at('p1'))).written).toBe(1);

    expect(receiver.requests.map((request) => request.status)).toEqual([503, 503, 200]);
    expect(new Set(receiver.requests.map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(waits).toHaveLength(2);
    expect(receiver.rows('acme', 'calls').map((row) => row.id)).toEqual(['c1']);
  });

  it('waits as long as a 429 Retry-After says', async () => {
    receiver.respondNext({ status: 429, headers: { 'retry-after': '1' } });
    const sink = await openSink();
    await sink.write(batchOf([call('c1')]), at('p1'));
    expect(waits).toEqual([1000]);
    expect(receiver.requests.map((request) => request.status)).toEqual([429, 200]);
  });

  it('retries an attempt that times out', async () => {
    receiver.respondNext({ status: 200, delayMs: 1500 });
    const sink = await openSink({ timeoutMs: 200 });
    expect((await sink.write(batchOf([call('c1')]), at('p1'))).written).toBe(1);
    expect(receiver.requests).toHaveLength(2);
    expect(receiver.rows('acme', 'calls').map((row) => row.id)).toEqual(['c1']);
  });

  it('keeps the checkpoint when the receiver stays unreachable', async () => {
    const sink = await openSink({ retry: { maxAttempts: 2, baseDelayMs: 1 } });
    await receiver.close();
    await expect(sink.write(batchOf([call('c1')]), at('p1'))).rejects.toMatchObject({ name: 'WebhookDeliveryError', kind: 'transient', attempts: 2 });
    expect(await sink.checkpoints.load('acme', 'calls')).toBeUndefined();
    receiver = await WebhookReceiver.start(secret);
  });

  it('dead-letters a batch refused with 400 (status and body as reason) and goes on', async () => {
    receiver.respondNext({ status: 400, body: `{"error":"direction must be a number","echo":"${secret}"}` });
    const sink = await openSink();
    const refused = await sink.write(batchOf([call('c1'), call('c2')]), at('p1'));
    const next = await sink.write(batchOf([call('c3')]), at('p2'));

    expect(refused).toEqual({ written: 0, unchanged: 0, deadLettered: 2 });
    expect(next).toEqual({ written: 1, unchanged: 0, deadLettered: 0 });
    const letters = await sink.deadLetters.list({ businessId: 'acme', stream: 'calls' });
    expect(letters.map((letter) => letter.raw)).toEqual([
      { id: 'c1', note: 'call c1' },
      { id: 'c2', note: 'call c2' },
    ]);
    expect(letters[0]?.reason).toBe('webhook receiver answered HTTP 400: {"error":"direction must be a number","echo":"[redacted]"}');
    expect(receiver.rows('acme', 'calls').map((row) => row.id)).toEqual(['c3']);
    expect(await sink.checkpoints.load('acme', 'calls')).toEqual(checkpointAt('p2', 1));
  });

  it('sends a replayed batch with the same Idempotency-Key, and the receiver drops it', async () => {
    const sink = await openSink();
    const batch = batchOf([call('c1'), call('c2')]);
    await sink.write(batch, at('p1'));
    const replay = await sink.write(batch, at('p1'));
    const changed = await sink.write(batchOf([call('c1'), call('c2', 'edited')]), at('p2'));

    const keys = receiver.requests.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(replay).toEqual({ written: 0, unchanged: 2, deadLettered: 0 });
    expect(changed).toEqual({ written: 1, unchanged: 1, deadLettered: 0 });
    expect(receiver.rows('acme', 'calls').map((row) => (row.raw as { note: string }).note)).toEqual(['call c1', 'edited']);
    expect((await sink.checkpoints.load('acme', 'calls'))?.recordsSynced).toBe(3);
  });

  it('stores the checkpoint of an empty batch without a POST', async () => {
    const sink = await openSink();
    expect(await sink.write(batchOf([]), at('end'))).toEqual({ written: 0, unchanged: 0, deadLettered: 0 });
    expect(receiver.requests).toEqual([]);
    expect(await sink.checkpoints.load('acme', 'calls')).toEqual(checkpointAt('end'));
  });
});

describe('webhook sink with its state in Postgres', () => {
  it('stores checkpoints and dead letters in the configured schema', async () => {
    const schema = uniqueName('webhook_state');
    const sink = await openSink({ state: { type: 'postgres', url: postgresUrl, schema } });
    const client = new pg.Client({ connectionString: postgresUrl });
    await client.connect();
    try {
      receiver.respondNext({ status: 422, body: 'unprocessable' });
      await sink.write(batchOf([call('c1')]), at('p1'));
      await sink.write(batchOf([call('c2')]), at('p2'));
      const state = await client.query<{ stream: string; position: unknown; records_synced: string | number }>(
        // The '(webhook)' row binds the state to its receiver (sink.onEndpointChange).
        `select stream, position, records_synced from "${schema}".sync_state where business_id <> '(webhook)'`,
      );
      expect(state.rows.map((row) => [row.stream, row.position, Number(row.records_synced)])).toEqual([['calls', { cursor: 'p2' }, 1]]);
      const letters = await client.query(`select reason from "${schema}".dead_letters`);
      expect(letters.rows).toEqual([{ reason: 'webhook receiver answered HTTP 422: unprocessable' }]);
    } finally {
      await sink.close();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    }
  });
});
