import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../simulator/index.js';
import { startFakeHubSpot } from '../fakes/hubspot/index.js';
import { WebhookReceiver } from '../fakes/webhook-receiver.js';
import { expectExact, figuresOf } from './support/figures.js';
import { recordRow } from './support/results.js';
import { chaosRunConfig, collectLogs, readStatus, spawnRun, stopAll, waitFor, waitForExactSqlite, workspace, type RunProcess } from './support/run-harness.js';
import { SecretScanner } from './support/secret-scanner.js';
import { sleep } from './support/seeded.js';
import { cleanupSteps } from '../integration/support/cleanup-steps.js';

/**
 * Time at 1/60 scale: the five-minute outage is five seconds and a minute's schedule a second.
 * `reconcile.every` is 2 s so full walks run inside the outage too, and `deleteAfter` 1 s is
 * shorter than the outage, so the share limit alone has to stop the marking.
 */
const OUTAGE_MS = 5_000;
const RECONCILE = { every: '2s', deleteAfter: '1s' };
const SECRET = 'chaos-shrunken-lists-webhook-secret';
const scanner = new SecretScanner();
const cleanup = cleanupSteps(afterAll);

function deletedRows(databasePath: string, tables: readonly string[] = ['calls', 'numbers']): number {
  const database = new Database(databasePath, { readonly: true, timeout: 20_000 });
  try {
    return tables.reduce(
      (sum, table) => sum + (database.prepare(`select count(*) as n from "${table}" where deleted_at is not null`).get() as { n: number }).n,
      0,
    );
  } finally {
    database.close();
  }
}

/** Every v1 stream of every business idle with a difference of 0 (`/status`). */
async function allExact(url: string): Promise<boolean> {
  const status = (await readStatus(url)) as unknown as { businesses: Array<{ streams: Array<{ stream: string; state: string; difference: number | null }> }> };
  const streams = status.businesses.flatMap((business) => business.streams).filter((stream) => stream.stream !== 'voicemails');
  return streams.length > 0 && streams.every((stream) => stream.state === 'idle' && stream.difference === 0);
}

describe('scenario 18: upstream answers a third of each list for five minutes under `run`, then recovers', () => {
  it('marks nothing deleted, sends no deleted event, archives nothing, and ends exact in SQLite, at a webhook receiver and in HubSpot', async () => {
    const simulator: Simulator = await startSimulator({
      businesses: 2,
      calls: 600,
      voicemails: 20,
      numbers: 6,
      seed: 1_818,
      rateLimit: { limit: 200, windowMs: 1000 },
    });
    scanner.addSimulator(simulator);
    const receiver = await WebhookReceiver.start(SECRET);
    const hubspot = await startFakeHubSpot();
    const ws = workspace('chaos-shrunken');
    const processes: RunProcess[] = [];
    cleanup.push(
      () => simulator.close(),
      () => receiver.close(),
      () => hubspot.close(),
      () => ws.cleanup(),
      () => stopAll(processes),
    );
    const base = { dbPath: ws.dbPath, every: '1s', pageSize: 100, rateLimit: { requests: 40, perMs: 1000 }, reconcile: RECONCILE };
    const sqliteWorker = spawnRun(ws.writeConfig(chaosRunConfig(simulator, { ...base, prefix: `${ws.prefix}:sqlite` }), 'sqlite.json'));
    const webhookSink = { type: 'webhook', url: receiver.url, secret: SECRET, state: { type: 'sqlite', path: join(ws.dir, 'webhook-state.db') } };
    const webhookWorker = spawnRun(ws.writeConfig(chaosRunConfig(simulator, { ...base, prefix: `${ws.prefix}:webhook`, sink: webhookSink }), 'webhook.json'));
    // HubSpot holds calls only (its objects are fixed); its fake enforces the published limits.
    const hubspotSink = { type: 'hubspot', token: hubspot.token, baseUrl: hubspot.baseUrl, state: { type: 'sqlite', path: join(ws.dir, 'hubspot-state.db') } };
    const hubspotConfig = chaosRunConfig(simulator, { ...base, prefix: `${ws.prefix}:hubspot`, sink: hubspotSink }) as {
      businesses: Array<Record<string, unknown>>;
    };
    hubspotConfig.businesses = hubspotConfig.businesses.map((business) => ({ ...business, streams: ['calls'] }));
    const hubspotWorker = spawnRun(ws.writeConfig(hubspotConfig, 'hubspot.json'));
    processes.push(sqliteWorker, webhookWorker, hubspotWorker);
    const urls = await Promise.all(processes.map((worker) => worker.url));
    const everyExact = async (): Promise<true | undefined> => ((await Promise.all(urls.map(allExact))).every(Boolean) ? true : undefined);
    await waitFor('the history in every sink', everyExact, 120_000, 500);

    simulator.setHostile({ listShare: 1 / 3 });
    const outageEnds = Date.now() + OUTAGE_MS;
    await sleep(OUTAGE_MS / 2);
    // Calls keep arriving during the outage; two of three are hidden like the rest.
    for (const business of simulator.businesses) simulator.addCalls(business.name, 30);
    // The guard must have been asked, not only spared: each worker held at least one walk per business.
    const heldBy = (worker: RunProcess, business: string) =>
      worker.logs.some((line) => line.business === business && line.stream === 'calls' && typeof line.heldDeletions === 'number');
    await waitFor(
      'a held walk in each worker for each business',
      () => (processes.every((worker) => simulator.businesses.every((business) => heldBy(worker, business.name))) ? true : undefined),
      60_000,
      250,
    );
    await sleep(Math.max(0, outageEnds - Date.now()));
    simulator.setHostile({ listShare: 1 });
    const outageMs = Date.now() - (outageEnds - OUTAGE_MS);

    await waitFor('every sink exact again', everyExact, 120_000, 500);
    const diffs = await waitForExactSqlite(ws.dbPath, simulator, 30_000, 500);
    const deletedEvents = receiver.requests.filter((request) => request.body.includes('"event":"deleted"')).length;
    const held = processes.flatMap((worker) => worker.logs).filter((line) => typeof line.heldDeletions === 'number').length;
    const marked = processes.flatMap((worker) => worker.logs).reduce((sum, line) => sum + (typeof line.markedDeleted === 'number' ? line.markedDeleted : 0), 0);
    for (const url of urls) await scanner.collectHttp('worker', url);
    await stopAll(processes);
    collectLogs(scanner, 'shrunken', processes);
    scanner.collectSqlite('sink', ws.dbPath);
    scanner.collectSqlite('webhook state', join(ws.dir, 'webhook-state.db'));
    scanner.collect('webhook deliveries', receiver.requests.map((request) => request.body).join('\n'));
    scanner.collectSqlite('hubspot state', join(ws.dir, 'hubspot-state.db'));
    scanner.collect('hubspot calls', JSON.stringify(hubspot.calls()));
    const archived = hubspot.archivedCalls().length;

    const figures = figuresOf(diffs);
    recordRow({
      scenario: '18 a third of each list for 5 min (scaled to 5 s), run into SQLite, a webhook and HubSpot',
      faults: { 'shrunken lists (s)': Math.round(outageMs / 1000), 'held walks': held },
      restarts: 0,
      ...figures,
      note: `0 expected: marked ${marked}, deleted events ${deletedEvents}, archived ${archived}`,
    });
    expect(marked).toBe(0);
    expect(deletedRows(ws.dbPath)).toBe(0);
    expect(deletedRows(join(ws.dir, 'webhook-state.db'))).toBe(0);
    expect(deletedEvents).toBe(0);
    expect(archived).toBe(0);
    expect(deletedRows(join(ws.dir, 'hubspot-state.db'), ['calls'])).toBe(0);
    expectExact(diffs);
    for (const business of simulator.businesses) {
      const truth = simulator.truth(business.name);
      for (const stream of ['calls', 'numbers'] as const) {
        expect(receiver.deleted(business.name, stream), `${business.name}/${stream}`).toEqual([]);
        expect(
          receiver.rows(business.name, stream).map((record) => record.id),
          `${business.name}/${stream}`,
        ).toEqual(truth[stream].map((record) => String(record.id)).sort());
      }
      // One HubSpot call per record, none twice.
      const inHubSpot = hubspot
        .calls()
        .map((call) => call.properties.callsync_id ?? '')
        .filter((id) => id.startsWith(`${business.name}:calls:`))
        .sort();
      expect(inHubSpot, `${business.name} in HubSpot`).toEqual(truth.calls.map((record) => `${business.name}:calls:${record.id}`).sort());
    }
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('shrunken-lists').leaks).toEqual([]);
  });
});
