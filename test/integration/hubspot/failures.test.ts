import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { isHubSpotError } from '../../../connectors/hubspot/errors.js';
import { callsTable } from '../sink-conformance/fixtures.js';
import { inboundCall, startTarget, type HubSpotTarget } from './harness.js';

const A = 'acme';
const upserts = (target: HubSpotTarget) => target.fake.requests().filter((request) => request.path === '/crm/v3/objects/calls/batch/upsert');
const hundred = (bad: number) => Array.from({ length: 100 }, (_, index) => inboundCall(A, `c${index}`, index === bad ? { created_at: 'yesterday-ish' } : {}));

function expectNoToken(target: HubSpotTarget, ...values: unknown[]): void {
  for (const value of [...values, target.logs.join('\n')]) {
    expect(typeof value === 'string' ? value : inspect(value, { depth: 8 })).not.toContain(target.fake.token);
  }
}

describe('hubspot sink under failures', () => {
  let target: HubSpotTarget;
  afterEach(async () => target.close());

  it('waits out a 429 TEN_SECONDLY_ROLLING and succeeds', async () => {
    target = await startTarget({}, { associateContacts: false });
    await target.sink.prepare([callsTable]);
    target.fake.setFaults({ rateLimitNext: 2 });
    const result = await target.sink.write({ businessId: A, table: callsTable, records: [inboundCall(A, '1')], deadLetters: [] }, { cursor: 'a' });
    expect(result.written).toBe(1);
    expect(upserts(target).map((request) => request.status)).toEqual([429, 429, 200]);
    expect(target.fake.calls()).toHaveLength(1);
  });

  it('learns that associations count against the 10-s window when HubSpot says so, and causes no 429', async () => {
    target = await startTarget({
      contacts: [{ phone: '+14155550123' }],
      limits: { max: 5, intervalMs: 1000 },
      readings: { exemptions: { associations: false } },
    });
    for (let index = 0; index < 4; index += 1) {
      await target.sink.write({ businessId: A, table: callsTable, records: [inboundCall(A, `c${index}`)], deadLetters: [] }, { cursor: String(index) });
    }
    expect(target.fake.associations()).toHaveLength(4);
    expect(target.fake.refusals()).toEqual({});
  });

  it('retries a 5xx with backoff', async () => {
    target = await startTarget({}, { associateContacts: false });
    await target.sink.prepare([callsTable]);
    target.fake.setFaults({ serverErrorsNext: 3 });
    await target.sink.write({ businessId: A, table: callsTable, records: [inboundCall(A, '1')], deadLetters: [] }, { cursor: 'a' });
    expect(upserts(target).map((request) => request.status)).toEqual([500, 500, 500, 200]);
  });

  it('start-up check (prepare, then ping) retries 5xx under sink.retry before calling HubSpot down', async () => {
    target = await startTarget({}, { associateContacts: false });
    target.fake.setFaults({ serverErrorsNext: 2 });
    await target.sink.prepare([callsTable]);
    const statuses = () => target.fake.requests().map((request) => request.status);
    expect(statuses().slice(0, 2)).toEqual([500, 500]);
    const before = statuses().length;
    target.fake.setFaults({ serverErrorsNext: 2 });
    await target.sink.ping();
    expect(statuses().slice(before)).toEqual([500, 500, 200]);
  });

  it('stops on the DAILY limit without retrying, leaving the checkpoint where it was', async () => {
    target = await startTarget({}, { associateContacts: false });
    await target.sink.prepare([callsTable]);
    target.fake.setFaults({ dailyExhausted: true });
    const write = () => target.sink.write({ businessId: A, table: callsTable, records: [inboundCall(A, '1')], deadLetters: [] }, { cursor: 'a' });
    const error = await write().catch((caught: unknown) => caught);
    expect(isHubSpotError(error) && error.kind).toBe('daily_limit');
    expect(String(error)).toMatch(/daily/i);
    expect(upserts(target)).toHaveLength(1);
    // Known exhausted: the next write fails without spending a request.
    await expect(write()).rejects.toMatchObject({ code: 'HUBSPOT_DAILY_LIMIT' });
    expect(upserts(target)).toHaveLength(1);
    expect(await target.sink.checkpoints.load(A, 'calls')).toBeUndefined();
    expectNoToken(target, error);
  });

  it.each(['multi-status', 'reject-batch'] as const)('dead-letters the one bad record of 100 with HubSpot message (%s)', async (mode) => {
    target = await startTarget({ invalidInputs: mode }, { associateContacts: false });
    const records = hundred(37);
    const result = await target.sink.write({ businessId: A, table: callsTable, records, deadLetters: [] }, { cursor: 'b' });
    expect(result).toEqual({ written: 99, unchanged: 0, deadLettered: 1 });
    expect(target.fake.calls()).toHaveLength(99);
    const letters = await target.sink.deadLetters.list({ businessId: A, stream: 'calls' });
    expect(letters).toMatchObject([{ raw: records[37]?.raw }]);
    expect(letters[0]?.reason).toMatch(/^hubspot: Property values were not valid: .*yesterday-ish is not a valid datetime/);
    if (mode === 'reject-batch') expect(upserts(target).length).toBeGreaterThan(2);
    expect(await target.sink.checkpoints.load(A, 'calls')).toMatchObject({ position: { cursor: 'b' } });
    expectNoToken(target, letters);
  });

  it('stops on a refused token and never shows it', async () => {
    const wrong = 'pat-na1-00000000-wrong-token-value';
    target = await startTarget({}, { token: wrong, associateContacts: false });
    const error = await target.sink
      .write({ businessId: A, table: callsTable, records: [inboundCall(A, '1')], deadLetters: [] }, { cursor: 'a' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    expect(target.fake.requests()).toHaveLength(1);
    for (const value of [inspect(error, { depth: 8 }), JSON.stringify(error), target.logs.join('\n')]) expect(value).not.toContain(wrong);
  });
});
