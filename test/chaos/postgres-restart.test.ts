import { afterAll, describe, expect, it } from 'vitest';
import { postgresUrl, uniqueName } from '../integration/services.js';
import { expectExact, figuresOf } from './support/figures.js';
import { ensurePostgresRunning, startPostgres, stopPostgres } from './support/postgres-cluster.js';
import { dropSchema } from '../support/raw-postgres-baseline.js';
import { countPostgresRows, diffPostgres, dumpPostgresSchema } from './support/postgres-mirror.js';
import { recordRow } from './support/results.js';
import { collectLogs, readReadiness, startOneWorker, stopAll, waitFor } from './support/run-harness.js';
import { SecretScanner } from './support/secret-scanner.js';
import { sleep } from './support/seeded.js';
import { cleanupSteps } from '../integration/support/cleanup-steps.js';

const DOWN_MS = 4_000;
const scanner = new SecretScanner();
const cleanup = cleanupSteps(afterAll);
// Registered after the cleanup steps, so it runs before them (vitest runs after-hooks as a stack):
// whatever happened, the shared PostgreSQL is up again for everyone else.
afterAll(() => ensurePostgresRunning());

describe('scenario 5: PostgreSQL restarted in the middle of a `run` backfill into a Postgres sink', () => {
  it('reports the sink failing on /readyz while it is down, waits, resumes, and ends exact', async () => {
    const schema = uniqueName('chaos_pg');
    cleanup.push(() => dropSchema(postgresUrl, schema));
    const sink = { type: 'postgres', url: postgresUrl, schema, poolSize: 4 };
    const { sim: simulator, processes, worker, url, expected } = await startOneWorker('chaos-pg', 505, scanner, cleanup, { sink });
    await waitFor(
      'a third of the calls stored',
      async () => ((await countPostgresRows(postgresUrl, schema, 'calls')) >= expected / 3 ? true : undefined),
      60_000,
      200,
    );

    const answers: Array<{ status: number; failing: readonly string[] }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const readiness = await readReadiness(url).catch(() => undefined);
        if (readiness !== undefined) {
          answers.push({ status: readiness.status, failing: readiness.failing });
          scanner.collect('readyz during the restart', readiness.body);
        }
        await sleep(200);
      }
    })();
    try {
      stopPostgres();
      await sleep(DOWN_MS);
    } finally {
      startPostgres();
    }
    await waitFor('/readyz to be 200 again', () => (answers.at(-1)?.status === 200 ? true : undefined), 30_000, 200);
    polling = false;
    await poller;

    await waitFor('every call stored', async () => ((await countPostgresRows(postgresUrl, schema, 'calls')) >= expected ? true : undefined), 90_000, 500);
    const diffs = await waitFor(
      'the mirror to equal the truth',
      async () => {
        const d = await diffPostgres(postgresUrl, schema, simulator);
        return figuresOf(d).missing === 0 ? d : undefined;
      },
      30_000,
      1_000,
    );
    await scanner.collectHttp('worker', url);
    const alive = worker.child.exitCode === null && worker.child.signalCode === null;
    await stopAll(processes);
    collectLogs(scanner, 'postgres-restart', processes);
    for (const dump of await dumpPostgresSchema(postgresUrl, schema)) scanner.collect(`postgres table ${dump.table}`, dump.text);
    const notReady = answers.filter((answer) => answer.status === 503 && answer.failing.includes('sink')).length;
    recordRow({
      scenario: '5 PostgreSQL restarted',
      faults: { postgresStop: 1 },
      restarts: 1,
      ...figuresOf(diffs),
      note: `/readyz 503 [sink] ${notReady}× during ${DOWN_MS / 1000} s down`,
    });
    expect(alive, 'the worker survived the outage without a restart').toBe(true);
    expect(notReady).toBeGreaterThan(0);
    expectExact(diffs);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('postgres-restart').leaks).toEqual([]);
  });
});
