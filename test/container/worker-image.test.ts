import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { Simulator } from '../../simulator/index.js';
import { expectExact, figuresOf } from '../chaos/support/figures.js';
import { dropSchema } from '../support/raw-postgres-baseline.js';
import { countPostgresRows, diffPostgres } from '../chaos/support/postgres-mirror.js';
import { postgresUrl, redisUrl, uniqueName } from '../integration/services.js';
import { deleteKeys, waitFor } from '../integration/worker/harness.js';
import { startCliSimulator, twinSimulator, type CliSimulator, type SimulatorLine } from './support/cli-simulator.js';
import { freePort } from '../support/free-port.js';
import { imageUnderTest, inspectField, mainProcessUid, podman, podmanOk, runWorker, workerLogs } from './support/podman.js';

// Every upstream answer takes 600 ms, so a page is in flight at any moment of the backfill:
// 2 × 1,500 calls at 50 a page is 30 pages a business, ~20 s, long enough to stop it half way.
const SIMULATOR_ARGS = [
  '--businesses',
  '2',
  '--calls',
  '1500',
  '--voicemails',
  '40',
  '--numbers',
  '3',
  '--seed',
  '18',
  '--no-rate-limit',
  '--slow-rate',
  '1',
  '--slow-ms',
  '600',
  // The twin listens on other ports: links to fixed hosts keep its truth equal to the CLI simulator's.
  '--recordings-base-url',
  'https://media.calltrack.test',
  '--provider-base-url',
  'https://api.telephony.example',
];
// Longer than worker.shutdownTimeoutMs: podman's SIGKILL must never be what ends the worker.
const STOP_SECONDS = 40;

function workerConfig(sim: SimulatorLine, schema: string, prefix: string, port: number): Record<string, unknown> {
  return {
    upstream: {
      baseUrl: sim.baseUrl,
      v2BaseUrl: sim.v2BaseUrl,
      recordingsBaseUrl: sim.recordingsBaseUrl,
      pageSize: 50,
      rateLimit: { requests: 1000, perMs: 1000 },
    },
    businesses: sim.businesses.map((b) => ({ name: b.name, apiKey: b.apiKey, v2Token: b.v2Token })),
    sink: { type: 'postgres', url: postgresUrl, schema },
    schedule: { every: '2s' },
    redis: { url: redisUrl, prefix },
    // Host network: loopback is the host's, and a port found free there.
    server: { host: '127.0.0.1', port },
    worker: { concurrency: 4, shutdownTimeoutMs: 20_000 },
    log: { level: 'info' },
  };
}

async function statusUrl(container: string): Promise<string> {
  return waitFor(
    'the status server in the container',
    async () => {
      const logs = await workerLogs(container);
      const line = logs.find((entry) => entry.msg === 'status server listening');
      if (typeof line?.url === 'string') return line.url;
      if ((await inspectField(container, '{{.State.Status}}')) === 'exited') {
        throw new Error(
          `${container} exited before listening:\n${logs
            .slice(-10)
            .map((entry) => JSON.stringify(entry))
            .join('\n')}`,
        );
      }
      return undefined;
    },
    120_000,
    500,
  );
}

/** Stored calls and the count their checkpoints say were synced, summed over businesses. */
async function callsVersusCheckpoints(client: pg.Client, schema: string): Promise<{ rows: number; synced: number }> {
  const rows = await client.query<{ n: string }>(`select count(*) as n from "${schema}".calls`);
  const synced = await client.query<{ n: string | null }>(`select sum(records_synced) as n from "${schema}".sync_state where stream = 'calls'`);
  return { rows: Number(rows.rows[0]?.n ?? 0), synced: Number(synced.rows[0]?.n ?? 0) };
}

/**
 * Holds the calls table in SHARE mode (reads pass, writes wait) until a write of the worker waits
 * on it: a page is then being stored, in flight, for as long as the test wants.
 */
async function holdPageInFlight(schema: string): Promise<{ storedBefore: number; release(): Promise<void> }> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query('begin');
  await client.query(`lock table "${schema}".calls in share mode`);
  await waitFor(
    'a page write waiting on the calls table',
    async () => {
      const waiting = await client.query<{ n: string }>(`select count(*) as n from pg_locks where relation = '"${schema}".calls'::regclass and not granted`);
      return Number(waiting.rows[0]?.n) > 0 ? true : undefined;
    },
    60_000,
    100,
  );
  const storedBefore = (await callsVersusCheckpoints(client, schema)).rows;
  return {
    storedBefore,
    async release() {
      await client.query('commit');
      await client.end();
    },
  };
}

async function withClient<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** `podman stop` as an orchestrator sends it, then what the container's own exit said. */
async function stopWorker(container: string): Promise<{ stopCode: number; exitCode: string; messages: unknown[] }> {
  const stop = await podman(['stop', '--time', String(STOP_SECONDS), container], (STOP_SECONDS + 30) * 1000);
  const exitCode = await inspectField(container, '{{.State.ExitCode}}');
  return { stopCode: stop.code, exitCode, messages: (await workerLogs(container)).map((entry) => entry.msg) };
}

describe('the container image as the always-on worker (buildah-built, podman-run, host network)', () => {
  const image = imageUnderTest();
  const schema = uniqueName('container');
  const prefix = uniqueName('container');
  const containers = [`${schema}-a`, `${schema}-b`];
  const dir = mkdtempSync(join(tmpdir(), 'callsync-container-'));
  let simulator: CliSimulator | undefined;
  let twin: Simulator | undefined;

  beforeAll(async () => {
    simulator = await startCliSimulator(SIMULATOR_ARGS);
    twin = await twinSimulator(SIMULATOR_ARGS);
  });

  afterAll(async () => {
    for (const name of containers) await podman(['rm', '--force', '--time', '0', name]);
    await simulator?.stop();
    await twin?.close();
    await dropSchema(postgresUrl, schema);
    await deleteKeys(prefix);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers /healthz and /readyz, runs as node, stores the page in flight on podman stop, and a restart ends exact', async () => {
    const truth = twin!;
    const line = simulator!.line;
    expect(line.businesses.map((b) => b.apiKey)).toEqual(truth.businesses.map((b) => b.apiKey));
    const configPath = join(dir, 'callsync.yaml');
    const port = await freePort();
    writeFileSync(configPath, stringify(workerConfig(line, schema, prefix, port)));
    // The worker runs as node (uid 1000); the mounted file is read through the container's own view.
    chmodSync(configPath, 0o644);
    const expected = truth.businesses.reduce((sum, b) => sum + truth.truth(b.name).calls.length, 0);

    await runWorker(containers[0]!, image, configPath, port);
    const url = await statusUrl(containers[0]!);
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await waitFor(
      '/readyz 200',
      async () => {
        const response = await fetch(`${url}/readyz`);
        return response.status === 200 ? ((await response.json()) as { ready: boolean }) : undefined;
      },
      30_000,
      500,
    );
    expect(ready.ready).toBe(true);
    // The image's own HEALTHCHECK (kept by the Docker format the script builds in) passes.
    expect((await podman(['healthcheck', 'run', containers[0]!])).code).toBe(0);
    expect(await mainProcessUid(containers[0]!)).toBe(1000);
    expect((await podmanOk(['exec', containers[0]!, 'id', '-un'])).trim()).toBe('node');

    await waitFor(
      'a quarter of the calls stored',
      async () => ((await countPostgresRows(postgresUrl, schema, 'calls')) >= expected / 4 ? true : undefined),
      120_000,
      200,
    );
    const held = await holdPageInFlight(schema);
    const stopping = stopWorker(containers[0]!);
    await waitFor(
      'the worker to take SIGTERM',
      async () => ((await workerLogs(containers[0]!)).some((entry) => entry.msg === 'shutting down after the pages in flight are stored') ? true : undefined),
      30_000,
      200,
    );
    await held.release();
    const first = await stopping;
    expect(first.stopCode).toBe(0);
    expect(first.exitCode).toBe('0');
    expect(first.messages).toContain('stopped');
    expect(first.messages).not.toContain('shutdown deadline passed; exiting now');
    // The pages being written when SIGTERM came were stored after it, and checkpointed with them.
    const after = await withClient((client) => callsVersusCheckpoints(client, schema));
    expect(after.rows).toBeGreaterThan(held.storedBefore);
    expect(after.synced).toBe(after.rows);
    expect(after.rows).toBeLessThan(expected);

    await runWorker(containers[1]!, image, configPath, port);
    await statusUrl(containers[1]!);
    await waitFor('every call stored', async () => ((await countPostgresRows(postgresUrl, schema, 'calls')) >= expected ? true : undefined), 180_000, 500);
    const diffs = await waitFor(
      'the mirror to equal the truth',
      async () => {
        const d = await diffPostgres(postgresUrl, schema, truth);
        return figuresOf(d).missing === 0 ? d : undefined;
      },
      60_000,
      1_000,
    );
    const second = await stopWorker(containers[1]!);
    expect(second.stopCode).toBe(0);
    expect(second.exitCode).toBe('0');
    expectExact(diffs);
    expect(figuresOf(diffs).expected).toBeGreaterThan(expected);
  });
});
