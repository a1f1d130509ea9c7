import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../simulator/index.js';
import { WebhookReceiver, type ScriptedResponse } from '../../fakes/webhook-receiver.js';
import { configDocument } from '../support/backfill-harness.js';
import { runCli } from '../support/cli-process.js';
import { uniqueName } from '../services.js';

const secret = 'whsec_preflight_0123456789';
const unavailable: ScriptedResponse = { status: 503, body: 'no healthy upstream' };

// Issue 18: one 5xx to the start-up HEAD used to end the backfill with exit 3, nothing delivered.
describe('backfill into a webhook receiver whose front answers 503 at first', () => {
  let simulator: Simulator;
  let directory: string;
  let receiver: WebhookReceiver;
  let run = 0;

  beforeAll(async () => {
    simulator = await startSimulator({ businesses: 1, calls: 120, voicemails: 6, numbers: 2, seed: 18, rateLimit: false });
    directory = mkdtempSync(join(tmpdir(), 'callsync-preflight-'));
  });

  afterAll(async () => {
    await simulator.close();
  });

  beforeEach(async () => {
    receiver = await WebhookReceiver.start(secret);
    run += 1;
  });

  afterEach(async () => {
    await receiver.close();
  });

  /** A config file for the simulator into the receiver; small retry delays keep the test fast. */
  function writeConfig(): string {
    const sink = {
      type: 'webhook',
      url: receiver.url,
      secret,
      state: { type: 'sqlite', path: join(directory, `state-${run}.db`) },
      retry: { maxAttempts: 5, baseDelayMs: 5, maxDelayMs: 50 },
    };
    const path = join(directory, `config-${run}.json`);
    writeFileSync(path, JSON.stringify({ ...configDocument(simulator, '', { sink }), redis: { prefix: uniqueName('preflight') } }));
    return path;
  }

  const business = () => simulator.businesses[0]?.name ?? '';
  const truthIds = (stream: 'calls' | 'voicemails' | 'numbers') => {
    const records = simulator.truth(business())[stream];
    return records.map((record) => String(record.id)).sort();
  };
  const deliveredIds = (stream: string) =>
    receiver
      .rows(business(), stream)
      .map((row) => row.id)
      .sort();

  function expectEverythingDelivered(): void {
    expect(truthIds('calls')).toHaveLength(120);
    for (const stream of ['calls', 'voicemails', 'numbers'] as const) {
      expect(deliveredIds(stream), stream).toEqual(truthIds(stream));
    }
  }

  it('the first HEAD answered 503: every record delivered, exit 0', async () => {
    receiver.respondNextToAny(unavailable);
    const result = await runCli(['backfill', '--config', writeConfig(), '--no-progress']);
    expect(result.stderr).not.toContain('error:');
    expect(result.code).toBe(0);
    expect(receiver.requests[0]).toMatchObject({ method: 'HEAD', status: 503 });
    expectEverythingDelivered();
  });

  it('the first three requests (the HEAD and two POSTs) answered 503: every record delivered, exit 0', async () => {
    receiver.respondNextToAny(unavailable, unavailable, unavailable);
    const result = await runCli(['backfill', '--config', writeConfig(), '--no-progress']);
    expect(result.code).toBe(0);
    expect(receiver.requests.slice(0, 3).map((request) => [request.method, request.status])).toEqual([
      ['HEAD', 503],
      ['POST', 503],
      ['POST', 503],
    ]);
    expectEverythingDelivered();
  });

  it('the first HEAD reset: tried again under sink.retry, every record delivered, exit 0', async () => {
    receiver.respondNextToAny({ status: 200, reset: true });
    const result = await runCli(['backfill', '--config', writeConfig(), '--no-progress']);
    expect(result.code).toBe(0);
    expect(receiver.requests.slice(0, 2).map((request) => [request.method, request.status])).toEqual([
      ['HEAD', 0],
      ['HEAD', 405],
    ]);
    expect(result.stderr).toContain('webhook receiver not reached; trying again');
    expectEverythingDelivered();
  });

  it('check-config --check-connections says the same: a HEAD answered 503 is reachable, exit 0', async () => {
    receiver.respondNextToAny(unavailable);
    const result = await runCli(['check-config', '--config', writeConfig(), '--check-connections']);
    expect(result.stdout).toContain('  sink: reachable\n');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(receiver.requests.map((request) => [request.method, request.status])).toEqual([['HEAD', 503]]);
  });
});
