import { afterAll, describe, expect, it } from 'vitest';
import { expectExact, figuresOf } from './support/figures.js';
import { freePort } from '../support/free-port.js';
import { PrivateRedis } from './support/private-redis.js';
import { recordRow } from './support/results.js';
import { collectLogs, readReadiness, spawnRun, startOneWorker, stopAll, waitFor, waitForExactSqlite, type Readiness } from './support/run-harness.js';
import { SecretScanner } from './support/secret-scanner.js';
import { sleep } from './support/seeded.js';
import { countRows } from './support/sqlite-figures.js';
import { cleanupSteps } from '../integration/support/cleanup-steps.js';

const RESUME_WAIT_MS = 20_000;
const scanner = new SecretScanner();
/** Whether the worker resumed without an operator restart; measured by the first test, asserted by the second. */
let resumedAlone: { resumed: boolean; stored: number; expected: number; messages: string[] } | undefined;
const cleanup = cleanupSteps(afterAll);

describe('scenario 4: a private Redis restarted (state lost) in the middle of a `run` backfill', () => {
  it('reports redis on /readyz while it is down; the sink ends exact (after a worker restart if it needed one)', async () => {
    const redis = new PrivateRedis(await freePort());
    cleanup.push(() => redis.stop());
    await redis.start();
    const {
      sim: simulator,
      ws,
      processes,
      configPath,
      worker,
      url,
      expected,
    } = await startOneWorker('chaos-redis', 404, scanner, cleanup, { redisUrl: redis.url });
    await waitFor('a third of the calls stored', () => (countRows(ws.dbPath, 'calls') >= expected / 3 ? true : undefined), 60_000, 100);

    const logsBeforeStop = worker.logs.length;
    await redis.stop();
    const down: Readiness = await waitFor(
      '/readyz to name redis',
      async () => {
        const readiness = await readReadiness(url);
        return readiness.status === 503 && readiness.failing.includes('redis') ? readiness : undefined;
      },
      20_000,
      250,
    );
    scanner.collect('readyz while redis is down', down.body);
    const storedWhileDown = countRows(ws.dbPath, 'calls');
    await sleep(2_000);
    await redis.start();
    await waitFor('/readyz to be 200 again', async () => ((await readReadiness(url)).status === 200 ? true : undefined), 30_000, 250);

    // Without any operator action the worker must go on: the schedulers are gone with Redis's keys.
    const storedAtReturn = countRows(ws.dbPath, 'calls');
    const resumed = await waitFor(
      'the worker to resume on its own',
      () => (countRows(ws.dbPath, 'calls') >= Math.min(expected, storedAtReturn + 500) ? true : undefined),
      RESUME_WAIT_MS,
      500,
    ).then(
      () => true,
      () => false,
    );
    const storedAfterWait = countRows(ws.dbPath, 'calls');
    // What the worker said from the stop on, each message once: the lead's first clue when it stays idle.
    const messages = [
      ...new Set(worker.logs.slice(logsBeforeStop).map((line) => `${String(line.msg)}${typeof line.err === 'string' ? ` (${line.err.slice(0, 80)})` : ''}`)),
    ];
    resumedAlone = { resumed, stored: storedAfterWait, expected, messages };
    let restarts = 1;
    if (resumed) await waitFor('every call stored', () => (countRows(ws.dbPath, 'calls') >= expected ? true : undefined), 90_000, 500);
    else {
      // What an operator must do today: restart the worker so it reconciles its schedulers again.
      worker.child.kill('SIGTERM');
      await worker.exited;
      const again = spawnRun(configPath);
      processes.push(again);
      restarts += 1;
      await waitFor('every call stored after a worker restart', () => (countRows(ws.dbPath, 'calls') >= expected ? true : undefined), 90_000, 500);
    }
    const diffs = await waitForExactSqlite(ws.dbPath, simulator);
    await scanner.collectHttp('worker', await processes.at(-1)!.url);
    await stopAll(processes);
    collectLogs(scanner, 'redis-restart', processes);
    scanner.collectSqlite('sink', ws.dbPath);
    recordRow({
      scenario: '4 Redis restarted (no persistence)',
      faults: { redisStop: 1 },
      restarts,
      ...figuresOf(diffs),
      note: resumed
        ? 'resumed on its own'
        : `STUCK until worker restart (calls ${storedWhileDown} at stop, ${storedAfterWait}/${expected} ${RESUME_WAIT_MS / 1000} s after Redis returned)`,
    });
    expect(down.body).toContain('redis');
    expectExact(diffs);
  });

  it('resumes on its own once Redis is back, without an operator restarting the worker', () => {
    expect(resumedAlone, 'the first test did not get that far').toBeDefined();
    const { resumed, stored, expected, messages } = resumedAlone!;
    expect(
      resumed,
      `after Redis came back empty the worker stayed idle: ${stored}/${expected} calls ${RESUME_WAIT_MS / 1000} s later; only a restart (which reconciles the job schedulers) resumed it. Worker log since the stop: ${messages.join(' | ')}`,
    ).toBe(true);
  });

  it('leaks no secret in anything it saw', () => {
    expect(scanner.record('redis-restart').leaks).toEqual([]);
  });
});
