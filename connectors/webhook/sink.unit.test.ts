import { pino, type Logger } from 'pino';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Batch, Checkpoint, DeadLetter, JsonObject, Sink, SyncRecord } from '../../src/sink/sink.js';
import { MemoryStateStore } from '../../test/fakes/memory-state-store.js';
import { webhookConfigSchema } from './config.js';
import { createWebhookSink } from './sink.js';
import { verifyWebhookSignature } from './verify-webhook-signature.js';
import { WebhookDeliveryError } from './errors.js';

const secret = 'whsec_unit_0123456789abcdef';
const origin = 'https://hooks.example.com';
const now = Date.parse('2025-01-01T00:00:00Z');
const table = { stream: 'calls', table: 'calls', columns: [{ name: 'direction', type: 'text' as const }] };
const record = (id: string): SyncRecord => ({ businessId: 'acme', id, source: 'v1', fields: { direction: 'inbound' }, raw: { id } });
const batchOf = (records: SyncRecord[], deadLetters: DeadLetter[] = []): Batch => ({ businessId: 'acme', table, records, deadLetters });
const at = (cursor: string): JsonObject => ({ cursor });
const checkpoint = (cursor: string, recordsSynced = 0): Checkpoint => ({ businessId: 'acme', stream: 'calls', position: at(cursor), recordsSynced });

interface Captured {
  readonly headers: Record<string, string>;
  readonly body: string;
}

let agent: MockAgent;
let state: MemoryStateStore;
let sleeps: number[];
let logLines: string[];
let logger: Logger;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  state = new MemoryStateStore();
  sleeps = [];
  logLines = [];
  logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
});

afterEach(async () => {
  await agent.close();
});

async function sink(overrides: Record<string, unknown> = {}): Promise<Sink> {
  const config = webhookConfigSchema.parse({
    type: 'webhook',
    url: `${origin}/callsync?token=query-secret`,
    secret,
    retry: { maxAttempts: 3 },
    headers: { 'X-Tenant': 'acme' },
    ...overrides,
  });
  return createWebhookSink(
    config,
    { logger, dispatcher: agent },
    {
      store: state,
      now: () => now,
      random: () => 0.5,
      sleep: (ms) => Promise.resolve(void sleeps.push(ms)),
      newBatchId: () => 'batch-1',
    },
  );
}

/** Queues responses and records what each request carried. */
function respond(...replies: { status: number; body?: string; headers?: Record<string, string> }[]): Captured[] {
  const captured: Captured[] = [];
  for (const reply of replies) {
    agent
      .get(origin)
      .intercept({ path: '/callsync?token=query-secret', method: 'POST' })
      .reply((options) => {
        const headers = Object.entries(options.headers as Record<string, string>).map(([name, value]) => [name.toLowerCase(), value]);
        captured.push({ headers: Object.fromEntries(headers) as Record<string, string>, body: options.body as string });
        return { statusCode: reply.status, data: reply.body ?? '', responseOptions: { headers: reply.headers ?? {} } };
      });
  }
  return captured;
}

describe('webhook sink over a MockAgent', () => {
  it('POSTs a signed batch, then stores the checkpoint and counts the records', async () => {
    const captured = respond({ status: 200 });
    const result = await (await sink()).write(batchOf([record('c1'), record('c2')]), at('n1'));

    expect(result).toEqual({ written: 2, unchanged: 0, deadLettered: 0 });
    const [request] = captured;
    expect(request?.headers).toMatchObject({ 'content-type': 'application/json', 'x-tenant': 'acme', 'x-callsync-timestamp': String(now / 1000) });
    expect(request?.headers['idempotency-key']).toMatch(/^cs1_[0-9a-f]{64}$/);
    const signature = request?.headers['x-callsync-signature'];
    expect(verifyWebhookSignature({ secret, timestamp: request?.headers['x-callsync-timestamp'], body: request?.body ?? '', signature, now })).toBe(true);
    expect(JSON.parse(request?.body ?? '')).toMatchObject({ business_id: 'acme', stream: 'calls', batch_id: 'batch-1', records: [{ id: 'c1' }, { id: 'c2' }] });
    expect(state.stored.get('acme/calls')).toEqual(checkpoint('n1', 2));
    // The state store keeps a copy of what the receiver acknowledged, committed with the checkpoint.
    expect(state.commits.map((commit) => commit.records.map((stored) => stored.id))).toEqual([['c1', 'c2']]);
    agent.assertNoPendingInterceptors();
  });

  it('fails a request the mock did not expect instead of reaching the network', async () => {
    respond({ status: 200 });
    const webhook = await sink({ url: `${origin}/elsewhere` });
    const error = await webhook.write(batchOf([record('c1')]), at('n1')).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(WebhookDeliveryError);
    expect(error).toMatchObject({ kind: 'invalid', attempts: 1 });
    expect((error as Error).cause).toHaveProperty('name', 'MockNotMatchedError');
    expect(state.stored.size).toBe(0);
    expect(sleeps).toEqual([]);
  });

  it('retries 503 with full-jitter backoff and then delivers', async () => {
    const captured = respond({ status: 503 }, { status: 503 }, { status: 204 });
    const result = await (await sink()).write(batchOf([record('c1')]), at('n1'));

    expect(result.written).toBe(1);
    expect(captured).toHaveLength(3);
    expect(sleeps).toEqual([250, 500]);
    expect(new Set(captured.map((request) => request.headers['idempotency-key'])).size).toBe(1);
    expect(state.stored.get('acme/calls')?.position).toEqual({ cursor: 'n1' });
  });

  it('waits as long as a 429 Retry-After asks', async () => {
    respond({ status: 429, headers: { 'retry-after': '7' } }, { status: 200 });
    await (await sink({ retry: { maxAttempts: 3, maxDelayMs: 10_000 } })).write(batchOf([record('c1')]), at('n1'));
    expect(sleeps).toEqual([7000]);
  });

  it('hands a Retry-After longer than maxDelayMs back to the engine without moving the checkpoint', async () => {
    respond({ status: 429, headers: { 'retry-after': '120' } });
    const error = await (await sink()).write(batchOf([record('c1')]), at('n1')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'WebhookDeliveryError', kind: 'rate_limited', retryAfterMs: 120_000 });
    expect(state.stored.size).toBe(0);
    expect(sleeps).toEqual([]);
  });

  it('gives up after maxAttempts with a transient error and keeps the checkpoint', async () => {
    const captured = respond({ status: 500 }, { status: 502 }, { status: 500, body: `echo ${secret}` });
    const error = await (await sink()).write(batchOf([record('c1')]), at('n1')).catch((caught: unknown) => caught);
    expect(captured).toHaveLength(3);
    expect(error).toMatchObject({ kind: 'transient', attempts: 3 });
    expect((error as Error).message).toContain('https://hooks.example.com/callsync: gave up after 3 attempts: webhook receiver answered HTTP 500');
    expect((error as Error).message).not.toContain(secret);
    expect((error as Error).message).not.toContain('query-secret');
    expect(state.stored.size).toBe(0);
  });

  it('turns a 400 into dead letters with status and body, stores the checkpoint and goes on', async () => {
    respond({ status: 400, body: `bad record; signed with ${secret}` }, { status: 200 });
    const webhook = await sink();
    const earlier: DeadLetter = { businessId: 'acme', stream: 'calls', reason: 'created_at: unparseable', raw: { id: 'x' } };
    const rejected = await webhook.write(batchOf([record('c1'), record('c2')], [earlier]), at('n1'));
    const next = await webhook.write(batchOf([record('c3')]), at('n2'));

    expect(rejected).toEqual({ written: 0, unchanged: 0, deadLettered: 3 });
    expect(next.written).toBe(1);
    const letters = await webhook.deadLetters.list({});
    expect(letters.map((letter) => [letter.raw, letter.reason])).toEqual([
      [{ id: 'x' }, 'created_at: unparseable'],
      [{ id: 'c1' }, 'webhook receiver answered HTTP 400: bad record; signed with [redacted]'],
      [{ id: 'c2' }, 'webhook receiver answered HTTP 400: bad record; signed with [redacted]'],
    ]);
    expect(await webhook.checkpoints.load('acme', 'calls')).toEqual(checkpoint('n2', 1));
  });

  it('reports what the receiver acknowledged and counts only new records', async () => {
    respond({ status: 200, body: '{"written":1,"unchanged":1}' }, { status: 200, headers: { 'idempotent-replayed': 'true' } });
    const webhook = await sink();
    expect(await webhook.write(batchOf([record('c1'), record('c2')]), at('n1'))).toEqual({ written: 1, unchanged: 1, deadLettered: 0 });
    expect(await webhook.write(batchOf([record('c1'), record('c2')]), at('n1'))).toEqual({ written: 0, unchanged: 2, deadLettered: 0 });
    expect(state.stored.get('acme/calls')?.recordsSynced).toBe(1);
  });

  it('sends one record per id, the later copy winning', async () => {
    const captured = respond({ status: 200 });
    const first = { ...record('c1'), raw: { id: 'c1', v: 1 } };
    const second = { ...record('c1'), raw: { id: 'c1', v: 2 } };
    expect((await (await sink()).write(batchOf([first, second]), at('n1'))).written).toBe(1);
    expect((JSON.parse(captured[0]?.body ?? '') as { records: unknown[] }).records).toMatchObject([{ id: 'c1', raw: { v: 2 } }]);
  });

  it('stores the checkpoint of an empty batch without any request', async () => {
    const letter: DeadLetter = { businessId: 'acme', stream: 'calls', reason: 'no id', raw: {} };
    const result = await (await sink()).write(batchOf([], [letter]), at('n9'));
    expect(result).toEqual({ written: 0, unchanged: 0, deadLettered: 1 });
    expect(state.stored.get('acme/calls')?.position).toEqual({ cursor: 'n9' });
    expect(state.letters).toHaveLength(1);
  });

  it('declares its capabilities from the config and closes the state store once', async () => {
    const webhook = await sink({ batchSize: 50 });
    expect(webhook.capabilities).toEqual({ maxBatchSize: 50 });
    await webhook.close();
    await webhook.close();
    expect(state.closed).toBe(1);
  });

  it('sends deletion as a signed deleted event with no records, then marks the copy; a refusal marks nothing', async () => {
    const captured = respond({ status: 200 }, { status: 200 }, { status: 409, body: 'unknown ids' });
    const webhook = await sink();
    await webhook.write(batchOf([record('c1'), record('c2'), record('c3')]), at('n1'));
    expect(await webhook.records.markDeleted('acme', table, ['c3', 'c1'])).toBe(2);
    const deletion = captured[1];
    expect(JSON.parse(deletion?.body ?? '')).toEqual({
      business_id: 'acme',
      stream: 'calls',
      records: [],
      batch_id: 'batch-1',
      event: 'deleted',
      deleted: [
        { id: 'c3', deleted_at: '2025-01-01T00:00:00Z' },
        { id: 'c1', deleted_at: '2025-01-01T00:00:00Z' },
      ],
    });
    const signature = deletion?.headers['x-callsync-signature'];
    expect(verifyWebhookSignature({ secret, timestamp: deletion?.headers['x-callsync-timestamp'], body: deletion?.body ?? '', signature, now })).toBe(true);
    expect(deletion?.headers['idempotency-key']).toMatch(/^cs1_[0-9a-f]{64}$/);
    expect(deletion?.headers['idempotency-key']).not.toBe(captured[0]?.headers['idempotency-key']);
    expect(await webhook.records.listIds('acme', table)).toEqual(['c2']);

    const refused = await webhook.records.markDeleted('acme', table, ['c2']).catch((caught: unknown) => caught);
    expect(refused).toBeInstanceOf(WebhookDeliveryError);
    expect((refused as Error).message).toContain('webhook receiver answered HTTP 409');
    expect(await webhook.records.count('acme', table)).toBe(1);
    agent.assertNoPendingInterceptors();
  });

  it('never logs the secret or the query string', async () => {
    respond({ status: 503, body: `nope ${secret}` }, { status: 400, body: secret });
    await (await sink()).write(batchOf([record('c1')]), at('n1'));
    const log = logLines.join('\n');
    expect(log).toContain('retrying');
    expect(log).not.toContain(secret);
    expect(log).not.toContain('query-secret');
  });
});
